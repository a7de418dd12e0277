// SPDX-License-Identifier: Apache-2.0

/// Steps over plain text eight bytes at a time: what the parser and the encoder do with a string
/// that holds no quote, backslash, control character or non-ASCII byte (a registration token, a
/// message id), where a step a byte was most of their time.
enum JSONWordScan {
    /// Where the first eight-byte word from `start` that may hold a quote, a backslash, a control
    /// character or a byte outside ASCII begins (or the last whole word ends): every byte before
    /// it is plain ASCII, and the caller reads on byte by byte from there.
    static func plainASCII(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        guard let base = UnsafeRawPointer(buffer.baseAddress) else { return i }
        while i + 8 <= buffer.count, !mayStop(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
        return i
    }

    /// The classic SWAR tests ("Bit Twiddling Hacks", "Determine if a word has a byte equal to n"
    /// and "less than n"): they may also answer yes after a byte that does, never no when one does.
    private static func mayStop(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
        return (special | word) & high != 0
    }
}
