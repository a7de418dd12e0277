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
}
