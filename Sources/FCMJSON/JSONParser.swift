// SPDX-License-Identifier: Apache-2.0

/// Why a document is not acceptable JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Peer input reaches it directly, so it never traps: nesting is capped, every index is checked,
/// invalid UTF-8 and lone surrogates are errors, and duplicate object keys are refused (Google's
/// JSON transcoder refuses them too).
public struct JSONParser {
    public static let defaultMaxDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses one JSON document; surrounding white space is allowed, trailing content is not.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes), maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("Unexpected content after the document") }
        return value
    }

    /// Parses a document given as a string.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String, value: JSONValue) throws(JSONParseError) -> JSONValue {
        // A bad literal is reported where it starts, as Jackson (behind FCM) reports it.
        let start = index
        for expected in literal.utf8 {
            guard current == expected else { throw JSONParseError(offset: start, reason: "Invalid literal") }
            index += 1
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < maxDepth else { throw error("Nesting is deeper than \(maxDepth) levels") }
        guard let b = current else { throw error("Unexpected end of input") }
        switch b {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("Unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var pairs: [(String, JSONValue)] = []
        // Small objects (nearly all of them) check duplicates by scanning; large ones by hashing.
        var seen: Set<String>?
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(pairs)
        }
        // Room for a small object's members at once, where appending grew it two or three times.
        pairs.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("Expected a string key") }
            let key = try parseString()
            if pairs.count < 16 {
                guard !pairs.contains(where: { $0.0 == key }) else { throw error("Duplicate key \"\(key)\"") }
            } else {
                if seen == nil { seen = Set(pairs.map(\.0)) }
                guard seen?.insert(key).inserted == true else { throw error("Duplicate key \"\(key)\"") }
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("Expected ':'") }
            index += 1
            skipWhitespace()
            pairs.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(pairs)
            default: throw error("Expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default: throw error("Expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("Invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let d = current, isDigit(d) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let d = current, isDigit(d) else { throw error("Invalid number") }
            while let d = current, isDigit(d) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let d = current, isDigit(d) else { throw error("Invalid number") }
            while let d = current, isDigit(d) { index += 1 }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the string is the bytes between the quotes.
        // The scan runs over the buffer with a local index: tokens are 163 bytes, and each step
        // through the array and the parser's own index cost a few instructions more.
        var ascii = true
        index = bytes.withUnsafeBufferPointer { buffer in
            // Plain ASCII eight bytes a step (`JSONWordScan`), then byte by byte.
            var i = JSONWordScan.plainASCII(in: buffer, from: start)
            while i < buffer.count {
                let b = buffer[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
                ascii = ascii && b < 0x80
                i += 1
            }
            return i
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            // ASCII is valid UTF-8 as it stands, and decoding it from contiguous bytes is a copy;
            // the generic validation costs a thousand instructions a string.
            let end = index
            let string: String
            if ascii {
                string = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
            } else {
                guard let valid = String(validating: bytes[start..<end], as: UTF8.self) else { throw error("Invalid UTF-8") }
                string = valid
            }
            index += 1
            return string
        }
        // Slow path: decode escapes into a byte buffer, validate once at the end.
        var buffer = Array(bytes[start..<index])
        while true {
            guard let b = current else { throw error("Unterminated string") }
            if b == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: buffer, as: UTF8.self) else { throw error("Invalid UTF-8") }
                return string
            }
            if b < 0x20 { throw error("Control character in string") }
            index += 1
            guard b == UInt8(ascii: "\\") else {
                buffer.append(b)
                continue
            }
            guard let escape = current else { throw error("Unterminated string") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"): buffer.append(contentsOf: String(try parseUnicodeEscape()).utf8)
            default: throw error("Invalid escape")
            }
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("Invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("Invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xDC00...0xDFFF).contains(high) { throw error("Lone low surrogate") }
        guard (0xD800...0xDBFF).contains(high) else {
            guard let scalar = Unicode.Scalar(high) else { throw error("Invalid \\u escape") }
            return scalar
        }
        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            throw error("Lone high surrogate")
        }
        index += 2
        let low = try parseHex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw error("Invalid surrogate pair") }
        let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        guard let scalar = Unicode.Scalar(combined) else { throw error("Invalid surrogate pair") }
        return scalar
    }
}
