// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

/// All inboxes together keep to `maxInboxBytes` (docs/limits.md): 100,000 devices on one topic
/// and 150 small sends kept 15 million deliveries, about 1.4 GB, for good, when only each
/// device's count was bounded.
@Suite("Inboxes bounded in bytes")
struct InboxBytesTests {
    /// The ledger agrees with the inboxes: as many deliveries, and their costs add up.
    static func checkLedger(_ h: Harness) {
        h.emu.withWorld { w in
            let inboxes = w.devices.compactMap { $0?.inbox }
            #expect(w.inboxLedger.kept == inboxes.reduce(0) { $0 + $1.count })
            #expect(w.inboxLedger.bytes == inboxes.reduce(0) { $0 + $1.reduce(0) { $0 + InboxLedger.cost(of: $1) } })
        }
    }

    @Test func theOldestDeliveriesOfAllInboxesGoFirstPastTheBudget() throws {
        let h = Harness { $0.maxInboxBytes = 1 << 20 }
        let devices = try (0..<2000).map { _ in try h.device(topics: ["news"]) }
        func send(_ n: Int) throws {
            _ = try h.emu.send(
                SendRequest(target: .topic("news"), content: MessageContent(data: [("n", String(n))]), api: .v1), from: h.project)
        }
        for n in 0..<20 { try send(n) }
        let bytes = h.emu.withWorld { $0.inboxLedger.bytes }
        #expect(bytes <= 1 << 20)
        #expect(bytes > (1 << 20) - InboxLedger.slotBytes * 2 - 4096, "the budget is used, not emptied")
        // Every device keeps the newest sends and lost the oldest: no device lost a newer one
        // while it kept an older one.
        for device in [devices[0], devices[1999]] {
            let numbers = try h.inbox(device).compactMap { $0.message?.content.data.first?.1 }.compactMap { Int($0) }
            #expect(numbers.last == 19)
            #expect(numbers == Array((20 - numbers.count)..<20))
            #expect(numbers.count < 20)
        }
        let trimmed = try h.emu.events(EventQuery(kinds: [.inboxTrimmed]))
        #expect(!trimmed.isEmpty)
        #expect(trimmed.count <= 20, "one event per send, not one per delivery dropped")
        #expect(trimmed.last?.detail?.contains("maxInboxBytes") == true)
        Self.checkLedger(h)
    }

    /// A device's own cap, a cleared inbox and a deleted device give their bytes back, and the
    /// ledger's entries of what left otherwise are swept.
    @Test func whatLeavesAnInboxOtherwiseIsCountedOut() throws {
        let h = Harness { $0.maxInboxPerDevice = 10 }
        let a = try h.device(name: "a")
        let b = try h.device(name: "b")
        for _ in 0..<3000 { try h.sendData(a) }
        for _ in 0..<5 { try h.sendData(b) }
        Self.checkLedger(h)
        try h.emu.clearInbox("a", projectId: h.project)
        Self.checkLedger(h)
        try h.emu.deleteDevice("b", projectId: h.project)
        Self.checkLedger(h)
        #expect(h.emu.withWorld { $0.inboxLedger.kept } == 0)
        #expect(h.emu.withWorld { $0.inboxLedger.bytes } == 0)
    }

    /// A snapshot's inboxes are counted again at import, and kept to the budget there.
    @Test func anImportedWorldIsCountedAndKeptToTheBudget() throws {
        let h = Harness()
        let devices = try (0..<300).map { _ in try h.device(topics: ["news"]) }
        for n in 0..<20 {
            _ = try h.emu.send(
                SendRequest(target: .topic("news"), content: MessageContent(data: [("n", String(n))]), api: .v1), from: h.project)
        }
        try h.sendData(devices[0])
        let image = h.emu.worldImage()
        let before = h.emu.withWorld { ($0.inboxLedger.kept, $0.inboxLedger.bytes) }
        _ = h.emu.restore(image, clock: .snapshot)
        #expect(h.emu.withWorld { ($0.inboxLedger.kept, $0.inboxLedger.bytes) } == before)
        Self.checkLedger(h)
    }
}
