// SPDX-License-Identifier: Apache-2.0

/// The sets of bytes HTTP's grammar names, a bit an ASCII byte: the request decoder tests each
/// byte of a target and a name against them, and the answer's encoder each byte of a name.
enum HTTPBytes {
    /// RFC 9110 §5.6.2's tchar: `!#$%&'*+-.^_`|~`, digits and letters.
    static func isToken(_ byte: UInt8) -> Bool {
        isIn(byte, low: 0x03ff_6cfa_0000_0000, high: 0x57ff_ffff_c7ff_fffe)
    }

    /// A tchar that is not an uppercase letter: what an HTTP/2 field name is made of (RFC 9113
    /// §8.2.1).
    static func isLowercaseToken(_ byte: UInt8) -> Bool {
        isIn(byte, low: 0x03ff_6cfa_0000_0000, high: 0x57ff_ffff_c000_0000)
    }

    /// RFC 3986's pchar, `/` and `?` (§3.3, §3.4): unreserved, sub-delims, `:`, `@` and `%`.
    static func isTarget(_ byte: UInt8) -> Bool {
        isIn(byte, low: 0xafff_fff2_0000_0000, high: 0x47ff_fffe_87ff_ffff)
    }

    /// Whether `byte`'s bit is set in a set of ASCII bytes given as two 64-bit halves.
    @inline(__always)
    private static func isIn(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        if byte < 64 { return (low &>> UInt64(byte)) & 1 == 1 }
        return byte < 128 && (high &>> UInt64(byte &- 64)) & 1 == 1
    }
}
