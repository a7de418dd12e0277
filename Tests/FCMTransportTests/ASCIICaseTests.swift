// SPDX-License-Identifier: Apache-2.0

import FCMTransport
import Testing

/// HTTP compares field names and auth schemes without case for ASCII letters only (RFC 9110
/// §5.1, §11.1): bytes that differ by 0x20 but are not letters stay different.
@Suite struct ASCIICaseTests {
    @Test func lettersMatchWithoutCaseAndNothingElseDoes() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-TYPE"))
        #expect("Bearer".equalsIgnoringASCIICase("bEARER"))
        #expect(!"a".equalsIgnoringASCIICase("b"))
        #expect(!"ab".equalsIgnoringASCIICase("a"))
        #expect(!"[".equalsIgnoringASCIICase("{"))  // 0x5B and 0x7B
        #expect(!"@".equalsIgnoringASCIICase("`"))  // 0x40 and 0x60
        #expect(!"\u{C1}".equalsIgnoringASCIICase("\u{E1}"))  // Á and á: not ASCII
        #expect("".equalsIgnoringASCIICase(""))
    }

    /// Every pair of ASCII bytes, as Strings and as Substrings (two implementations), against the
    /// rule: equal, or the same letter in the other case.
    @Test func everyPairOfBytesIsJudgedByTheRule() {
        func letter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        for a in UInt8(0)..<128 {
            for b in UInt8(0)..<128 {
                let rule = a == b || (letter(a) && letter(b) && a | 0x20 == b | 0x20)
                let (x, y) = (String(decoding: [0x2D, a], as: UTF8.self), String(decoding: [0x2D, b], as: UTF8.self))
                #expect(x.equalsIgnoringASCIICase(y) == rule, "\(a) \(b)")
                #expect(x.dropFirst().equalsIgnoringASCIICase(y.dropFirst()) == rule, "\(a) \(b)")
            }
        }
    }

    /// `equalsLengthFirst` is equality of the bytes, for names of equal and unequal lengths, ASCII
    /// or not: `é` and `e` with a combining accent, equal to `==`, are different names.
    @Test func lengthFirstIsEqualityOfTheBytes() {
        let names = ["", "a", "ab", "token", "topic", "tokeN", "restricted_package_name", "restricted_package_namE", "é", "e\u{301}"]
        #expect("é" == "e\u{301}" && !"é".equalsLengthFirst("e\u{301}"))
        for a in names {
            for b in names { #expect(a.equalsLengthFirst(b) == a.utf8.elementsEqual(b.utf8), "\(a) \(b)") }
        }
    }
}
