// SPDX-License-Identifier: Apache-2.0

extension StringProtocol {
    /// Equal with ASCII letters compared without case, as HTTP compares field names (RFC 9110
    /// §5.1) and auth schemes (§11.1), byte by byte: a header lookup made a lowercased copy of
    /// every name it passed, several per request.
    /// Inlinable: the fronts call it from other modules, where an unspecialized generic call cost
    /// a v1 send 7,000 instructions.
    @inlinable
    package func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        // Lengths first: a header lookup compares mostly names of other lengths, and a UTF-8
        // view's count costs nothing for a native string.
        guard utf8.count == other.utf8.count else { return false }
        var mine = utf8.makeIterator()
        var theirs = other.utf8.makeIterator()
        while true {
            switch (mine.next(), theirs.next()) {
            case (nil, nil): return true
            case (let a?, let b?): if a != b, a | 0x20 != b | 0x20 || !(0x61...0x7A).contains(a | 0x20) { return false }
            default: return false
            }
        }
    }
}

extension String {
    /// The same for two Strings, from their contiguous bytes: a header lookup compares names,
    /// and the views' iterators cost ten times the loop.
    @inlinable
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var mine = self
        var theirs = other
        return mine.withUTF8 { a in
            theirs.withUTF8 { b in
                for i in 0..<a.count where a[i] != b[i] {
                    let lower = a[i] | 0x20
                    if lower != b[i] | 0x20 || !(0x61...0x7A).contains(lower) { return false }
                }
                return true
            }
        }
    }
}

extension String {
    /// Equal names, lengths first: where two names differ in length (most of those a lookup
    /// passes), that is read from the strings at once, where `==` took Swift's slow comparison.
    /// Lengths are UTF-8 bytes, so names that Unicode calls equivalent but spells differently
    /// (`é` and `e` with U+0301) are different names, as they are on the wire: HTTP paths and
    /// proto field names compare bytes. For the lookups by name on a request's path: route
    /// segments, a v1 body's fields.
    @inlinable
    package func equalsLengthFirst(_ other: String) -> Bool {
        utf8.count == other.utf8.count && self == other
    }
}

extension StringProtocol {
    /// Without the optional whitespace HTTP allows around field values and list items (spaces
    /// and tabs; RFC 9110 §5.6.3).
    @inlinable
    package var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes are `lowercase`'s, with ASCII letters compared without case: the
    /// same comparison for bytes not yet made a String (the request decoder's field names and
    /// `Connection` values).
    func equalsIgnoringASCIICase(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        let other = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<count where self[index] != other[index] {
            guard self[index] | 0x20 == other[index], (0x61...0x7A).contains(other[index]) else { return false }
        }
        return true
    }
}
