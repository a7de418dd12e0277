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
}
