// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A complete HTTP request as the fronts see it: no NIO types, so the same handlers serve
/// HTTP/1.1, HTTP/2 and in-process calls from tests and scenarios (Sources/README.md).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, percent-encoded as received.
    public var path: String
    public var query: [(String, String)]
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// HTTP/2's `:authority`, which names the request's target there as `Host` does over
    /// HTTP/1.1 (RFC 9113 §8.3.1); nil over HTTP/1.1 and in process. `AccessPolicy` reads it.
    public var authority: String?

    public init(method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        // Methods arrive upper-case (NIO's are); only others are copied.
        let upper = method.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        self.method = upper ? method : method.uppercased()
        // Byte-wise: a request target is ASCII (RFC 9112 §3.2), and this runs on every request;
        // from contiguous bytes the search is a plain loop, where the view's was thirty
        // instructions a byte.
        var target = target
        let offset = target.withUTF8 { $0.firstIndex(of: UInt8(ascii: "?")) }
        let bytes = target.utf8
        if let offset {
            let mark = bytes.index(bytes.startIndex, offsetBy: offset)
            path = String(Substring(bytes[..<mark]))
            query = Self.parseQuery(String(Substring(bytes[bytes.index(after: mark)...])))
        } else {
            path = target
            query = []
        }
        self.headers = headers
        self.body = body
    }

    public init(method: String, target: String, headers: [(String, String)] = [], body: String) {
        self.init(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.equalsIgnoringASCIICase(name) }?.1
    }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? { query.first { $0.0 == name }?.1 }

    /// `application/x-www-form-urlencoded` and query strings: `+` is a space, `%XX` a byte.
    public static func parseQuery(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecode(String(kv[0]), plusIsSpace: true) ?? String(kv[0])
            let value = kv.count > 1 ? (percentDecode(String(kv[1]), plusIsSpace: true) ?? String(kv[1])) : ""
            return (key, value)
        }
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed or the bytes are not UTF-8.
    public static func percentDecode(_ text: String, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let b = iterator.next() {
            if b == UInt8(ascii: "%") {
                guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            } else if plusIsSpace, b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
