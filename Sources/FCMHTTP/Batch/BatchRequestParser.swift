// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// One sub-request of a Google "global HTTP batch" body.
struct BatchPart: Sendable {
    /// The part's `Content-ID`, as sent (`1`, `<uuid + 1>`), or nil.
    let contentID: String?
    let request: HTTPRequest
}

/// Reads `multipart/mixed` batch bodies in every SDK's variant (docs/http-v1.md, "Paths"): a quoted or
/// bare boundary, CRLF or bare LF line ends, absolute-form or origin-form request lines, and part
/// `Content-Length` headers that disagree with the body (ignored).
enum BatchRequestParser {
    /// A body the batch endpoint cannot split: Google's 400 INVALID_ARGUMENT, saying why.
    static func failure(_ message: String) -> V1Error {
        V1Error.invalidArgument("Invalid multipart request: \(message)")
    }

    static let maxParts = 500

    /// The boundary from a `Content-Type: multipart/mixed; boundary=…` header.
    static func boundary(contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/mixed") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingSpaces
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    static func parse(_ body: [UInt8], boundary: String) throws(V1Error) -> [BatchPart] {
        // Swift reads "\r\n" as one Character; with LF-only text, one splitting rule serves both
        // the CRLF (Node, Go, Java) and bare-LF (googleapiclient) variants. Bodies are JSON, where
        // a CR is only white space.
        let text = String(decoding: body, as: UTF8.self).replacingAll("\r\n", "\n")
        let delimiter = "--" + boundary
        var chunks = text.components(separatedByString: delimiter)
        guard chunks.count >= 2 else { throw failure("The batch body has no part delimited by its boundary.") }
        chunks.removeFirst()  // the preamble
        var parts: [BatchPart] = []
        for chunk in chunks {
            if chunk.hasPrefix("--") { break }  // the close delimiter
            guard parts.count < maxParts else { throw failure("A batch may hold at most \(maxParts) requests.") }
            parts.append(try part(chunk))
        }
        guard !parts.isEmpty else { throw failure("The batch holds no requests.") }
        return parts
    }

    private static func part(_ chunk: String) throws(V1Error) -> BatchPart {
        let (partHeaders, inner) = splitHead(chunk.hasPrefix("\n") ? String(chunk.dropFirst()) : chunk)
        let contentID = partHeaders.first { $0.0.equalsIgnoringASCIICase("content-id") }?.1
        let (head, body) = splitHead(inner, requestLine: true)
        guard let requestLine = head.first?.1 else { throw failure("A batch part has no request line.") }
        let words = requestLine.split(separator: " ")
        guard words.count >= 2 else { throw failure("Malformed request line in a batch part: \(requestLine)") }
        var target = String(words[1])
        // Absolute form (`POST https://fcm.googleapis.com/v1/...`): keep the path and query.
        if let scheme = target.firstRange(of: "://") {
            let afterScheme = target[scheme.upperBound...]
            target = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        var trimmedBody = Substring(body)
        while trimmedBody.hasSuffix("\n") { trimmedBody = trimmedBody.dropLast() }
        return BatchPart(
            contentID: contentID,
            request: HTTPRequest(method: String(words[0]), target: target, headers: Array(head.dropFirst()), body: Array(trimmedBody.utf8))
        )
    }

    /// Splits header lines from what follows the first empty line. With `requestLine`, the first
    /// line is returned as a pseudo-header so that callers see it first.
    private static func splitHead(_ text: String, requestLine: Bool = false) -> ([(String, String)], String) {
        var headers: [(String, String)] = []
        var rest = Substring(text)
        var first = requestLine
        while !rest.isEmpty {
            let lineEnd = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[rest.startIndex..<lineEnd]
            rest = lineEnd == rest.endIndex ? rest[lineEnd...] : rest[rest.index(after: lineEnd)...]
            if line.isEmpty {
                if first { continue }  // blank lines before the request line
                break
            }
            if first {
                headers.append(("", String(line)))
                first = false
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        return (headers, String(rest))
    }
}

extension String {
    func components(separatedByString separator: String) -> [String] {
        split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}
