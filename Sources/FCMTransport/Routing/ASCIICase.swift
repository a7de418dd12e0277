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

@inline(__always)
private func asciiLower(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
