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

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Close the connection after this response (the peer misbehaved, or asked to).
    public var closeConnection = false
    /// Hold the response back this long (an injected latency), in milliseconds of the emulator's
    /// clock: the transport waits the wall-time equivalent, the scenario runner advances the clock.
    public var delayMillis: Int64 = 0
    /// Drop the connection instead of answering (an injected reset).
    public var resetConnection = false
    /// End an HTTP/2 connection with GOAWAY (an injected goaway): after this answer when graceful,
    /// instead of it otherwise (the answer then also has `resetConnection`, which is what HTTP/1.1
    /// and in-process callers see).
    public var goAway: GoAway?
    /// Reset the request's HTTP/2 stream with RST_STREAM and this error code (RFC 9113 §6.4, §7)
    /// instead of answering (an injected rstStream); the answer then also has `resetConnection`,
    /// which is what HTTP/1.1 and in-process callers see.
    public var resetStream: UInt32?
    /// Never answer (an injected hold): the request stays open, keeping this place among the
    /// server's `LiveRequests`, until the client gives up, the connection closes, or the server
    /// stops. In-process callers see the status, which no client of a socket does.
    public var held: LiveSlot?
    /// The rest of the answer comes later: a wait or an event stream (transports only).
    public var live: LiveAnswer?
    /// What an FCM front refused in this answer, as the client sees it (`RefusalRecorder` records
    /// them as `refused` events; the access log says why). A front notes those it answers with a
    /// success status (legacy per-result errors); error statuses are noted even when it does not.
    public var refusals: [Refusal] = []
    /// The API that answered, as the access log names it (`API`, set from the router's mounts).
    public var api = API.other.rawValue

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, body: String) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.equalsIgnoringASCIICase(name) }?.1
    }

    /// The standard reason phrase; batch parsers need one on every status line (googleapiclient/http.py
    /// splits a batch part's status line in three; docs/http-v1.md).
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Payload Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }
}

/// A GOAWAY frame to send (RFC 9113 §6.8): its error code (0 is NO_ERROR, a graceful close) and
/// opaque debug data.
public struct GoAway: Sendable, Equatable {
    public var errorCode: UInt32
    public var debugData: String?

    public init(errorCode: UInt32, debugData: String? = nil) {
        self.errorCode = errorCode
        self.debugData = debugData
    }

    public var isGraceful: Bool { errorCode == 0 }
}
