// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import Testing

/// The ledger behind retry marks: gaps kept to the newest eight, and a bounded map.
@Suite struct RetryLedgerTests {
    @Test func gapsAreTheNewestEight() {
        var ledger = RetryLedger()
        var mark: RetryMark?
        for i in 0..<12 { mark = ledger.attempt(7, at: Instant(millis: Int64(i) * 100), windowMillis: 1_000) }
        #expect(mark?.attempt == 12)
        #expect(mark?.gapsMillis == Array(repeating: 100, count: 8))
        ledger.accepted(7, messageId: "m")
        #expect(ledger.attempt(7, at: Instant(millis: 1_200), windowMillis: 1_000)?.of == "m")
    }

    /// A flood of distinct sends inside one window never holds more than `maxEntries`.
    @Test func aFloodOfDistinctSendsIsBounded() {
        var ledger = RetryLedger()
        for key in 0..<UInt64(RetryLedger.maxEntries * 2 + 10) {
            _ = ledger.attempt(key, at: Instant(millis: 5), windowMillis: 60_000)
            #expect(ledger.count <= RetryLedger.maxEntries)
        }
        // Past the window the sweep forgets them.
        _ = ledger.attempt(.max, at: Instant(millis: 10_000_000), windowMillis: 60_000)
        #expect(ledger.count <= RetryLedger.maxEntries)
    }

    /// A repeat is the same bytes to the same project; any other change is another send.
    @Test func aFingerprintChangesWithAnyByteAndWithWherePartsMeet() {
        let body = Array(#"{"message":{"token":"abc","data":{"k":"v"}}}"#.utf8)
        let original = SendFingerprint.of(project: "demo", body: body)
        #expect(SendFingerprint.of(project: "demo", body: body) == original)
        var seen: Set<UInt64> = [original]
        for length in 0...body.count {
            // Every prefix, and every one-byte change of every place.
            seen.insert(SendFingerprint.of(project: "demo", body: Array(body.prefix(length))))
        }
        for place in body.indices {
            for flip in [UInt8(1), 0x20, 0x80] {
                var changed = body
                changed[place] ^= flip
                seen.insert(SendFingerprint.of(project: "demo", body: changed))
            }
        }
        // The whole body once, each shorter prefix, three changes a place: all different.
        #expect(seen.count == 1 + body.count + body.count * 3)
        #expect(SendFingerprint.of(project: "ab", body: Array("c".utf8)) != SendFingerprint.of(project: "a", body: Array("bc".utf8)))
        #expect(SendFingerprint.of(project: "", body: Array("demo".utf8)) != SendFingerprint.of(project: "demo", body: []))
        #expect(SendFingerprint.of(project: "demo", body: [0]) != SendFingerprint.of(project: "demo", body: []))
    }
}
