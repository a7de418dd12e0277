// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

/// What one hold of the world lock may cost a query (docs/limits.md): an events query that
/// matches little reads the log a slice at a time, a device search compares bytes and looks at a
/// slice of the devices at a time, and rate-limit windows that have ended are forgotten.
@Suite("Queries that never hold the world", .timeLimit(.minutes(1)))
struct QueryBoundsTests {
    /// 2,000 clock events and one topic send: a query for that topic (no index) looks at one slice
    /// of the log per hold of the lock, and the slices together find what one long scan found.
    @Test func anEventsQueryReadsTheLogASliceAtATime() throws {
        let h = Harness()
        let a = try h.device(name: "a", topics: ["news"])
        _ = try h.emu.send(SendRequest(target: .topic("news"), content: MessageContent(), api: .v1), from: h.project)
        for _ in 0..<2000 { _ = try h.emu.advance(byMillis: 1) }
        let query = EventQuery(topic: "news", kinds: nil)
        var read = EventRead(before: nil)
        let more = try h.emu.withWorld { (w: inout World) throws(FCMError) -> Bool in try w.advance(&read, matching: query, maxScan: 100) }
        #expect(more)
        #expect(read.end - read.cursor == 100, "one slice looks at 100 events, not the whole log")
        #expect(read.matched.isEmpty)
        let sliced = try h.emu.events(query, maxScan: 100)
        let whole = try h.emu.events(query, maxScan: 1 << 30)
        #expect(sliced.map(\.sequence) == whole.map(\.sequence))
        #expect(sliced.map(\.kind) == [.subscribed, .accepted, .delivered])
        _ = a
        // `before` reads further back: the event before the delivery is the acceptance.
        let delivered = try #require(sliced.last)
        #expect(try h.emu.events(query, before: delivered.sequence, maxScan: 7).map(\.kind) == [.subscribed, .accepted])
    }

    /// A query by kind reads its index, not the log: a kind that never came is known at once
    /// however long the log, and a device's deliveries are found among a crowd's.
    @Test func aKindQueryReadsOnlyItsIndex() throws {
        let h = Harness()
        let a = try h.device(name: "a")
        let b = try h.device(name: "b")
        try h.sendData(a)
        for _ in 0..<3000 { try h.sendData(b) }
        var read = EventRead(before: nil)
        let more = try h.emu.withWorld { (w: inout World) throws(FCMError) -> Bool in
            try w.advance(&read, matching: EventQuery(kinds: [.groupDeleted]), maxScan: 100)
        }
        #expect(!more, "nothing to look at: the read is over in one slice")
        #expect(read.matched.isEmpty)
        let found = try h.emu.events(EventQuery(deviceId: a.id, kinds: [.delivered]), maxScan: 2)
        #expect(found.count == 1)
        #expect(try h.emu.events(EventQuery(kinds: [.delivered], limit: 5), maxScan: 2).count == 5)
        // The index keeps in step with the log as its oldest events go.
        let small = Harness { $0.maxEvents = 100 }
        let c = try small.device(name: "c")
        for _ in 0..<200 { try small.sendData(c) }
        #expect(try small.emu.events(EventQuery(deviceId: c.id, kinds: [.delivered])).count == 50)
        #expect(try small.emu.events(EventQuery(kinds: [.accepted], limit: 1000)).count == 50)
    }

    /// A wait's tally of a log that was replaced is counted again a slice per call, from the
    /// oldest kept event forward (it read the whole log in one hold before).
    @Test func aTallyOfAReplacedLogIsCountedAgainInSlices() throws {
        let h = Harness()
        let a = try h.device(name: "a")
        let query = EventQuery(kinds: [.delivered])
        var (_, tally) = try h.emu.eventsTallied(query)
        let image = h.emu.worldImage()
        for _ in 0..<50 { try h.sendData(a) }
        for _ in 0..<500 { _ = try h.emu.advance(byMillis: 1) }
        let later = h.emu.worldImage()
        _ = h.emu.restore(image, clock: .snapshot)
        #expect(try h.emu.advance(&tally, matching: query))
        _ = h.emu.restore(later, clock: .snapshot)
        #expect(try !h.emu.advance(&tally, matching: query, maxScan: 20))
        #expect(tally.count <= 10)
        while try !h.emu.advance(&tally, matching: query, maxScan: 20) {}
        #expect(tally.count == 50)
    }

    /// 4 KB of combining accents against 10,000 devices held the world lock past this suite's
    /// one-minute limit (80 s at 5,000 in a release build) when names and
    /// tokens were compared as `Character`s; as bytes it is over at once.
    @Test func aSearchOfCombiningAccentsComparesBytes() throws {
        let h = Harness()
        for n in 0..<10_000 { _ = try h.device(name: "Phone \(n)") }
        let accents = String(repeating: "\u{301}", count: 2048)
        let (total, page) = try h.emu.devices(
            projectId: h.project, matching: DeviceQuery(text: accents), offset: 0, limit: 1000, maxTopicBytes: 1 << 20)
        #expect(total == 0)
        #expect(page.isEmpty)
    }

    /// What the search finds, by bytes: part of a token or FID as written, part of a name without
    /// regard to ASCII case, the whole id.
    @Test func theSearchMatchesTokensFIDsNamesAndIds() throws {
        let h = Harness()
        let kitchen = try h.device(name: "Kitchen Tablet")
        let other = try h.device(name: "Phone")
        func found(_ text: String) throws -> [DeviceID] {
            try h.emu.devices(projectId: h.project, matching: DeviceQuery(text: text), offset: 0, limit: 100, maxTopicBytes: 1 << 20)
                .page.map(\.id)
        }
        #expect(try found("tCHEN tab") == [kitchen.id])
        #expect(try found(String(kitchen.token.dropFirst(20).prefix(30))) == [kitchen.id])
        #expect(try found(String(kitchen.token.dropFirst(20).prefix(30)).uppercased()) == [])
        #expect(try found(kitchen.fid) == [kitchen.id])
        // The id as a whole (it may also be part of some token).
        #expect(try found(String(other.id)).contains(other.id))
        #expect(try !found("0" + String(other.id)).contains(other.id) || other.token.contains("0" + String(other.id)))
    }

    /// A search looks at a bounded slice of devices per hold of the lock and goes on after the
    /// last device it looked at, also when that one was deleted in between.
    @Test func aSearchGoesOnAfterADeviceDeletedBetweenSlices() throws {
        let h = Harness()
        let devices = try (0..<25).map { try h.device(name: "n\($0)") }
        let query = DeviceQuery(text: "n")
        var search = DeviceSearch(offset: 0, limit: 100, maxTopicBytes: 1 << 20)
        func slice() throws -> Bool {
            try h.emu.withWorld { (w: inout World) throws(FCMError) -> Bool in
                try w.advance(&search, projectId: h.project, matching: query, maxDevices: 10)
            }
        }
        #expect(try slice())
        #expect(search.total == 10)
        try h.emu.deleteDevice(String(devices[9].id), projectId: h.project)
        #expect(try slice())
        #expect(try !slice())
        // The deleted device was found before it was deleted; the rest after it, once each.
        #expect(search.page.map(\.id) == devices.map(\.id))
        #expect(search.total == 25)
    }

    /// Each topic name ever sent to kept a window, in memory and in every snapshot, and device
    /// windows outlived their devices; ended windows are now forgotten.
    @Test func endedRateWindowsAreForgotten() throws {
        let h = Harness {
            $0.topicRateLimit = EmulatorSettings.RateLimit(messages: 100, windowSeconds: 60)
            $0.deviceRateLimit = EmulatorSettings.RateLimit(messages: 100, windowSeconds: 60)
        }
        func send(topic: String) throws {
            _ = try h.emu.send(SendRequest(target: .topic(topic), content: MessageContent(), api: .v1), from: h.project)
        }
        let device = try h.device(name: "a")
        try h.sendData(device)
        for n in 0..<3000 { try send(topic: "t\(n)") }
        #expect(h.emu.withWorld { $0.rateWindows.count } == 3001)
        try h.emu.deleteDevice(String(device.id), projectId: h.project)
        try h.advance(seconds: 61)
        #expect(h.emu.worldImage().rateWindows.isEmpty, "a snapshot keeps no ended window")
        for n in 0..<3000 { try send(topic: "u\(n)") }
        let kept = h.emu.withWorld { w in w.rateWindows.keys.filter { !$0.contains(":u") }.count }
        #expect(kept == 0, "every window of the first minute, the deleted device's too, is gone")
        #expect(h.emu.withWorld { $0.rateWindows.count } == 3000)
    }
}
