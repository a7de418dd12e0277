// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Synchronization
import Testing

/// What an open wait or stream costs the thread that logs an event, the strict
/// reading of durations, and the event log's byte cap.
@Suite("Event waits and the log's size")
struct EventWaitTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func bump() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// 300 waits on one device cost a send to another device nothing: it wakes only whom it may
    /// concern (every watcher was called on every event before).
    @Test func anEventWakesOnlyTheWatchersItMayConcern() throws {
        let h = Harness()
        let a = try h.device(name: "a")
        let b = try h.device(name: "b")
        let onB = Counter()
        let onA = Counter()
        let watches = (0..<300).map { _ in h.emu.watchEvents(EventInterest(device: b.id, projectId: h.project)) { onB.bump() } }
        let watchA = h.emu.watchEvents(EventInterest(device: a.id, projectId: h.project, kinds: [.delivered])) { onA.bump() }
        try h.sendData(a)
        #expect(onB.count == 0)
        #expect(onA.count == 1)
        #expect(h.emu.watchers.calls.load(ordering: .relaxed) == 1)
        _ = try h.emu.setState("b", projectId: h.project, to: .offline)
        #expect(onB.count == 300)
        #expect(onA.count == 1)
        // A project's deletion ends every read in it, so it wakes everyone.
        try h.emu.deleteProject(id: h.project)
        #expect(onB.count == 600)
        #expect(onA.count == 2)
        _ = (watches, watchA)
    }

    /// An import of a snapshot taken earlier puts the log's sequence behind where it was; with a
    /// watcher open that trapped ("Range requires lowerBound <= upperBound") and took the server
    /// down. Now every watcher is woken to read the new log.
    @Test func anImportThatMovesTheLogBackWakesWatchersInsteadOfTrapping() throws {
        let h = Harness()
        let a = try h.device(name: "a")
        let earlier = h.emu.worldImage()
        for _ in 0..<3 { try h.sendData(a) }
        let woken = Counter()
        let watch = h.emu.watchEvents(EventInterest(device: a.id, projectId: h.project)) { woken.bump() }
        h.emu.restore(earlier, clock: .snapshot)
        #expect(woken.count == 1)
        try h.sendData(a)
        #expect(woken.count == 2)
        _ = watch
    }

    /// A wait keeps a count and a cursor: a wake-up reads only what was logged since the last,
    /// however long the log (it re-ran the whole query, a million events, for each wait before).
    @Test func aTallyReadsOnlyTheEventsLoggedSinceItsLastLook() throws {
        let h = Harness()
        let a = try h.device(name: "a")
        for _ in 0..<2000 { _ = try h.emu.advance(byMillis: 1) }
        let query = EventQuery(deviceId: a.id, kinds: [.delivered])
        var (events, tally) = try h.emu.eventsTallied(query)
        #expect(events.isEmpty)
        #expect(tally.count == 0)
        let start = tally.next
        try h.sendData(a)
        #expect(try h.emu.advance(&tally, matching: query))
        #expect(tally.count == 1)
        #expect(tally.next - start == 2)  // accepted, delivered: two events looked at, not 2,000
        // Bounded pages: a reader far behind catches up a page per call.
        for _ in 0..<10 { _ = try h.emu.advance(byMillis: 1) }
        #expect(try !h.emu.advance(&tally, matching: query, maxScan: 4))
        #expect(try h.emu.advance(&tally, matching: query, maxScan: 100))
        // A reset starts another log: the count is taken again, once.
        try h.emu.reset()
        #expect(try h.emu.advance(&tally, matching: query))
        #expect(tally.count == 0)
    }

    /// The log's cap counts bytes as well as events: 500 events of 10 KB under a 1 MiB cap keep
    /// about a hundred, the newest.
    @Test func theEventLogKeepsToItsByteCap() throws {
        let h = Harness { $0.maxEventBytes = 1 << 20 }
        let big = String(repeating: "x", count: 10_000)
        for i in 0..<500 { h.emu.recordProxyConnect("\(i) \(big)") }
        let kept = try h.emu.events(EventQuery(kinds: [.proxyConnect], limit: .max))
        #expect(kept.count > 90 && kept.count < 105, "\(kept.count)")
        #expect(kept.last?.detail?.hasPrefix("499 ") == true)
        let bytes = h.emu.state.withLock { $0.events.bytes }
        #expect(bytes <= 1 << 20)
        // One event over the whole cap is still kept, alone.
        h.emu.recordProxyConnect(String(repeating: "y", count: 2 << 20))
        #expect(try h.emu.events(EventQuery(limit: .max)).count == 1)
    }

    @Test func maxEventBytesTakesSizesInItsRangeOnly() throws {
        var s = EmulatorSettings()
        try s.set("maxEventBytes", "512MiB")
        #expect(s.maxEventBytes == 512 << 20)
        try s.set("maxEventBytes", "2097152")
        #expect(s.maxEventBytes == 2 << 20)
        for bad in ["0x100000", "512KiB", "65GiB", "-1", "1e9", " 2MiB", "2 MiB", "99999999999999999999GiB", ""] {
            #expect(throws: FCMError.self, "\(bad)") { try s.set("maxEventBytes", bad) }
        }
    }

    /// `Double(_:)` read `0x10` as 16 and `1e3` as 1000: a duration is plain decimals and units.
    @Test func durationsArePlainDecimalsWithUnits() {
        #expect(DurationText.millis("2.5") == 2500)
        #expect(DurationText.millis("500ms") == 500)
        #expect(DurationText.millis("1h30m") == 5_400_000)
        #expect(DurationText.millis(" 10s ") == 10_000)  // flags and config files may pad
        for bad in ["0x10", "+5", "1e3", "inf", "nan", "0x10s", "1e3ms", ".5s", "5.s", "١٢s", "٣", "-1", "5s+", "5 s"] {
            #expect(DurationText.millis(bad) == nil, "\(bad)")
        }
    }

    /// Whatever text is given, a duration is accepted only in the documented grammar.
    @Test func anAcceptedDurationAlwaysFollowsTheGrammar() throws {
        let grammar = try Regex(#"^\s*([0-9]+(\.[0-9]+)?|(([0-9]+(\.[0-9]+)?)(ms|s|m|h|d|w))+)\s*$"#)
        let alphabet = Array("0123456789.smhdwxe+- ٣")
        var rng = SeededRandom(seed: 23)
        for _ in 0..<20_000 {
            let text = String((0..<Int(rng.next() % 7 + 1)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            if DurationText.millis(text) != nil {
                #expect(text.wholeMatch(of: grammar) != nil, "\(text)")
            }
        }
    }
}
