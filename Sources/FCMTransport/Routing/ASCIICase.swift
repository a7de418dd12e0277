// SPDX-License-Identifier: Apache-2.0

extension StringProtocol {
    /// Equal with ASCII letters compared without case, as HTTP compares field names (RFC 9110
    /// §5.1) and auth schemes (§11.1), byte by byte: a header lookup made a lowercased copy of
    /// every name it passed, several per request.
    package func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        var mine = utf8.makeIterator()
        var theirs = other.utf8.makeIterator()
        while true {
            switch (mine.next(), theirs.next()) {
            case (nil, nil): return true
            case (let a?, let b?): if a != b, asciiLower(a) != asciiLower(b) { return false }
            default: return false
            }
        }
    }
}

extension StringProtocol {
    /// Without the optional whitespace HTTP allows around field values and list items (spaces
    /// and tabs; RFC 9110 §5.6.3).
    package var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

@inline(__always)
private func asciiLower(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
