// SPDX-License-Identifier: Apache-2.0

/// A cursor over one line that reads exactly the compact JSON this emulator writes: no white
/// space, strings without escapes. It reads the million-line files about ten times faster than a
/// JSON tree; whenever a line holds anything else it gives up (returns nil) and the line goes
/// through the strict parser, which reads it or says precisely what is wrong.
struct ByteScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Consumes `b` if it is next.
    mutating func take(_ b: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == b else { return false }
        index += 1
        return true
    }

    /// A whole number of at most 18 digits (so it cannot overflow), optionally negative.
    mutating func int() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, digits < 18 {
            value = value * 10 + Int64(bytes[index] - 48)
            index += 1
            digits += 1
        }
        guard digits > 0, index >= bytes.count || !(bytes[index] >= 48 && bytes[index] <= 57) else { return nil }
        // JSON has no leading zeros ("01"); leave such text to the strict parser.
        if digits > 1, bytes[index - digits] == 48 { return nil }
        return negative ? -value : value
    }

    /// The bytes of a string with no escapes, without its quotes.
    mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
            }
            // Escapes and control characters: the strict parser's business.
            if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A string as a Swift `String`; nil for escapes or invalid UTF-8.
    mutating func string() -> String? {
        guard let raw = rawString() else { return nil }
        return String(validating: raw, as: UTF8.self)
    }

    /// `"key":`, returning the key's bytes.
    mutating func key() -> UnsafeBufferPointer<UInt8>? {
        guard let raw = rawString(), take(UInt8(ascii: ":")) else { return nil }
        return raw
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = text.withUTF8Buffer { lit in (0..<count).allSatisfy { bytes[index + $0] == lit[$0] } }
        if matches { index += count }
        return matches
    }

    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes spell `text`.
    func equals(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { lit in lit.count == count && elementsEqual(lit) }
    }
}
