// SPDX-License-Identifier: Apache-2.0

import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request head in its plainest form, which `HTTP1RequestDecoder` reads itself: anything this
/// does not read is llhttp's to read or refuse.
///
/// - request-line = method SP origin-form SP ("HTTP/1.1" / "HTTP/1.0") CRLF (RFC 9112 §3), with
///   GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS, and a target of `/` followed by URI
///   characters (RFC 3986 §3.3, §3.4: pchar, `/`, `?`);
/// - field-line = token ":" OWS value CRLF (RFC 9112 §5, RFC 9110 §5.6.2), the value not empty,
///   of visible ASCII, spaces and tabs, and not ending in either;
/// - at most one `Content-Length` of decimal digits, a `Connection` of `close` or `keep-alive`,
///   and no `Transfer-Encoding`, `Upgrade` or `Proxy-Connection` (which llhttp reads as
///   `Connection`): what decides where a request ends or whether the connection goes on stays
///   llhttp's unless it can be read only one way.
enum HTTP1RequestHead {
    /// A head that has not ended within this many bytes is llhttp's, which allows 80 KiB.
    static let maximumBytes = 16 * 1024
    /// And one with more fields than this.
    static let maximumFields = 100

    enum Scan: Equatable {
        /// The head ends at this offset (past its blank line).
        case complete(end: Int)
        /// Not yet; the bytes up to this offset need no second look.
        case incomplete(scanned: Int)
        /// Not the plainest form, or malformed: llhttp's.
        case otherForm
    }

    struct Request {
        var head: HTTPRequestHead
        var contentLength: Int
        var keepAlive: Bool
    }

    /// Finds the blank line that ends a head, from line end to line end (`memchr`, as the head is
    /// read again by `parse`, which checks every byte); a head that does not start with a capital
    /// letter (a TLS hello on the plain port), or has an LF without its CR, is llhttp's at once.
    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Scan {
        guard let base = bytes.baseAddress, let first = bytes.first else { return .incomplete(scanned: 0) }
        guard first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else { return .otherForm }
        var index = max(start, 1)
        while index < bytes.count, let found = memchr(base + index, 0x0A, bytes.count - index) {
            let lineFeed = base.distance(to: UnsafeRawPointer(found))
            guard bytes[lineFeed - 1] == UInt8(ascii: "\r") else { return .otherForm }
            // Every LF before this one had its CR: an LF two back is the line before's end.
            if lineFeed >= 3, bytes[lineFeed - 2] == UInt8(ascii: "\n") { return .complete(end: lineFeed + 1) }
            index = lineFeed + 1
        }
        return bytes.count > maximumBytes ? .otherForm : .incomplete(scanned: bytes.count)
    }

    /// The request a complete head (`scan`'s) holds, or nil when it is not in the plainest form.
    /// It must end in LF CR LF, which every loop below stops at: at the LF, or at the CR of a
    /// line that starts there.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Request? {
        // The shortest plain head: "GET / HTTP/1.1" and two CR LFs.
        guard bytes.count >= 18, bytes[bytes.count - 3] == UInt8(ascii: "\n"), bytes[bytes.count - 2] == UInt8(ascii: "\r"),
            bytes[bytes.count - 1] == UInt8(ascii: "\n"), let (method, afterMethod) = method(bytes)
        else { return nil }
        var cursor = afterMethod
        guard bytes[cursor] == UInt8(ascii: "/") else { return nil }
        while cursor < bytes.count, HTTPBytes.isTarget(bytes[cursor]) { cursor += 1 }
        let uri = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[afterMethod..<cursor]), as: UTF8.self)
        guard let version = version(bytes, cursor: &cursor) else { return nil }

        var fields: [(String, String)] = []
        fields.reserveCapacity(8)
        var contentLength: Int?
        var connection: Bool?  // close
        while bytes[cursor] != UInt8(ascii: "\r") {
            let nameStart = cursor
            while HTTPBytes.isToken(bytes[cursor]) { cursor += 1 }
            guard cursor > nameStart, bytes[cursor] == UInt8(ascii: ":") else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<cursor])
            cursor += 1
            while bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            let valueStart = cursor
            while bytes[cursor] &- 0x20 < 0x5F || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard bytes[cursor] == UInt8(ascii: "\r"), bytes[cursor + 1] == UInt8(ascii: "\n") else { return nil }
            // llhttp keeps the whitespace after a value (RFC 9112 §5 has it trimmed): a value that
            // ends in any is llhttp's, as is an empty one.
            guard cursor > valueStart, bytes[cursor - 1] != UInt8(ascii: " "), bytes[cursor - 1] != UInt8(ascii: "\t"),
                fields.count < maximumFields
            else { return nil }
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<cursor])
            cursor += 2
            switch Field(name) {
            case .other:
                break
            case .framing:
                return nil
            case .contentLength:
                guard contentLength == nil, let length = decimal(value) else { return nil }
                contentLength = length
            case .connection:
                guard connection == nil else { return nil }
                if value.equalsIgnoringASCIICase("close") {
                    connection = true
                } else if value.equalsIgnoringASCIICase("keep-alive") {
                    connection = false
                } else {
                    return nil
                }
            }
            let nameText = common(name, asName: true) ?? String(decoding: name, as: UTF8.self)
            fields.append((nameText, common(value, asName: false) ?? String(decoding: value, as: UTF8.self)))
        }
        // That CR starts the blank line that ends the head, not a line of its own.
        guard cursor + 2 == bytes.count else { return nil }
        let keepAlive = connection.map { !$0 } ?? (version == .http1_1)
        let head = HTTPRequestHead(version: version, method: method, uri: uri, headers: HTTPHeaders(fields))
        return Request(head: head, contentLength: contentLength ?? 0, keepAlive: keepAlive)
    }

    /// The method and where the target starts, from the head's first eight bytes at once.
    private static func method(_ bytes: UnsafeRawBufferPointer) -> (HTTPMethod, Int)? {
        let word = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        for (name, method) in methods {
            let length = name.utf8CodeUnitCount + 1
            let mask: UInt64 = length == 8 ? ~0 : (1 &<< UInt64(length * 8)) &- 1
            if word & mask == Self.word(name, then: UInt8(ascii: " ")) { return (method, length) }
        }
        return nil
    }

    private static let methods: [(StaticString, HTTPMethod)] = [
        ("POST", .POST), ("GET", .GET), ("PUT", .PUT), ("DELETE", .DELETE), ("HEAD", .HEAD), ("PATCH", .PATCH), ("OPTIONS", .OPTIONS),
    ]

    /// `text` and `then` as a little-endian word, as `loadUnaligned` reads them (at most 8 bytes).
    @inline(__always)
    private static func word(_ text: StaticString, then last: UInt8) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<text.utf8CodeUnitCount { word |= UInt64(text.utf8Start[index]) &<< UInt64(index * 8) }
        return word | UInt64(last) &<< UInt64(text.utf8CodeUnitCount * 8)
    }

    /// " HTTP/1.1" or " HTTP/1.0" and its CR LF.
    private static func version(_ bytes: UnsafeRawBufferPointer, cursor: inout Int) -> HTTPVersion? {
        guard bytes.count - cursor >= 11,
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)) == word(" HTTP/1", then: UInt8(ascii: "."))
        else { return nil }
        let minor = bytes[cursor + 8]
        guard minor == UInt8(ascii: "1") || minor == UInt8(ascii: "0"), bytes[cursor + 9] == UInt8(ascii: "\r"),
            bytes[cursor + 10] == UInt8(ascii: "\n")
        else { return nil }
        cursor += 11
        return minor == UInt8(ascii: "1") ? .http1_1 : .http1_0
    }

    /// The names most clients send, spelled as they send them, and the media type of every JSON
    /// send: each String made from a request's bytes costs it about 190 instructions (a name of
    /// more than 15 bytes, an allocation too), where a literal costs nothing (docs/benchmarks.md).
    private static func common(_ bytes: UnsafeRawBufferPointer, asName: Bool) -> String? {
        guard let first = bytes.first, let base = bytes.baseAddress else { return nil }
        let capital = first < UInt8(ascii: "a")
        let candidate: String
        switch (asName, bytes.count) {
        case (true, 4): candidate = capital ? "Host" : "host"
        case (true, 6): candidate = capital ? "Accept" : "accept"
        case (true, 10) where first | 0x20 == UInt8(ascii: "u"): candidate = capital ? "User-Agent" : "user-agent"
        case (true, 10): candidate = capital ? "Connection" : "connection"
        case (true, 12): candidate = capital ? "Content-Type" : "content-type"
        case (true, 13): candidate = capital ? "Authorization" : "authorization"
        case (true, 14): candidate = capital ? "Content-Length" : "content-length"
        case (true, 15): candidate = capital ? "Accept-Encoding" : "accept-encoding"
        case (false, 16): candidate = "application/json"
        default: return nil
        }
        var spelled = candidate
        return spelled.withUTF8 { $0.baseAddress.map { memcmp($0, base, bytes.count) == 0 } ?? false } ? candidate : nil
    }

    /// The fields that decide framing or the connection's life, by name (RFC 9110 §5.1: names are
    /// case-insensitive).
    private enum Field {
        case other, contentLength, connection, framing

        init(_ name: UnsafeRawBufferPointer) {
            switch name.count {
            case 7 where name.equalsIgnoringASCIICase("upgrade"): self = .framing
            case 10 where name.equalsIgnoringASCIICase("connection"): self = .connection
            case 14 where name.equalsIgnoringASCIICase("content-length"): self = .contentLength
            case 16 where name.equalsIgnoringASCIICase("proxy-connection"): self = .framing
            case 17 where name.equalsIgnoringASCIICase("transfer-encoding"): self = .framing
            default: self = .other
            }
        }
    }

    /// 1 to 15 decimal digits: more is llhttp's to refuse or read.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
