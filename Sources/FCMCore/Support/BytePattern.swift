// SPDX-License-Identifier: Apache-2.0

/// A substring search over UTF-8 bytes in time linear in the text (Knuth, Morris and Pratt's
/// fallback table, made once per pattern): the device search compared `Character`s, and 4 KB of
/// combining accents against 5,000 devices held the world lock for 80 s. Bytes have no graphemes
/// to assemble, and no text makes the search go back over what it has read.
package struct BytePattern: Sendable, Equatable {
    private let bytes: [UInt8]
    /// Where matching resumes in the pattern after a mismatch at each position.
    private let fallback: [Int]
    /// Letters A–Z and a–z compare alike (what "without regard to case" means for tokens, ids
    /// and names typed into a search box; letters outside ASCII compare as written).
    private let foldsCase: Bool

    package init(_ text: String, foldingASCIICase: Bool) {
        foldsCase = foldingASCIICase
        let bytes = text.utf8.map { foldingASCIICase ? Self.fold($0) : $0 }
        var fallback = [Int](repeating: 0, count: bytes.count)
        var k = 0
        for i in bytes.indices.dropFirst() {
            while k > 0, bytes[i] != bytes[k] { k = fallback[k - 1] }
            if bytes[i] == bytes[k] { k += 1 }
            fallback[i] = k
        }
        self.bytes = bytes
        self.fallback = fallback
    }

    /// Whether the pattern occurs in `text` (an empty pattern occurs everywhere).
    package func occurs(in text: String) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard text.utf8.count >= bytes.count else { return false }
        return text.utf8.withContiguousStorageIfAvailable { occurs(in: $0) } ?? occurs(in: Array(text.utf8))
    }

    private func occurs(in text: some Collection<UInt8>) -> Bool {
        var k = 0
        for raw in text {
            let byte = foldsCase ? Self.fold(raw) : raw
            while k > 0, byte != bytes[k] { k = fallback[k - 1] }
            if byte == bytes[k] { k += 1 }
            if k == bytes.count { return true }
        }
        return false
    }

    private static func fold(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
}
