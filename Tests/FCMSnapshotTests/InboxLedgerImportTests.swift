// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMSnapshot
import FCMTesting
import Testing

/// A snapshot's inboxes are counted again at import (`InboxLedger.rebuilt`): as many deliveries,
/// each message's bytes once, and the world kept to its `maxInboxBytes` from the first instant.
@Suite struct InboxLedgerImportTests {
    static func world() throws -> Emulator {
        let emu = Emulator(clock: .virtual(start: .virtualEpoch))
        for _ in 0..<1000 {
            _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", topics: ["news"]), projectId: DemoProject.id)
        }
        for n in 0..<20 {
            let content = MessageContent(data: [("n", String(n)), ("pad", String(repeating: "x", count: 1000))])
            _ = try emu.send(SendRequest(target: .topic("news"), content: content, api: .v1), from: DemoProject.id)
        }
        return emu
    }

    static func ledger(_ emu: Emulator) -> (kept: Int, bytes: Int) {
        emu.withWorld { ($0.inboxLedger.kept, $0.inboxLedger.bytes) }
    }

    @Test func anImportCountsEachDeliveryAndEachMessageOnce() throws {
        let scratch = try ScratchDirectory("inbox-ledger")
        defer { scratch.cleanup() }
        let original = try Self.world()
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(include: [.inboxes], emulatorVersion: "test"))
        let copy = Emulator(clock: .virtual(start: .virtualEpoch))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        let counted = Self.ledger(copy)
        #expect(counted.kept == 20_000)
        #expect(counted == Self.ledger(original))
    }

    @Test func anImportPastTheBudgetKeepsTheNewest() throws {
        let scratch = try ScratchDirectory("inbox-ledger")
        defer { scratch.cleanup() }
        let original = try Self.world()
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(include: [.inboxes], emulatorVersion: "test"))
        try CorruptSnapshotTests.editLines(scratch.sub("a"), "world.jsonl") { lines in
            lines[0] = ImportRangeTests.replace(field: "maxInboxBytes", in: lines[0], with: String(1 << 20)).0
        }
        let copy = Emulator(clock: .virtual(start: .virtualEpoch))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        let counted = Self.ledger(copy)
        #expect(counted.bytes <= 1 << 20)
        #expect(counted.kept < 20_000)
        let (_, inbox) = try copy.inbox("0", projectId: DemoProject.id)
        #expect(inbox.last?.message?.content.data.first?.1 == "19")
        #expect(try copy.events(EventQuery(kinds: [.inboxTrimmed])).count == 1)
    }
}
