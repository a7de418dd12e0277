// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

@Suite struct RoundTripTests {
    /// With inboxes most device lines take the strict path; without, the fast one.
    @Test(arguments: [WorldFixture.options, SnapshotOptions(emulatorVersion: "test")])
    func exportImportExportIsByteIdentical(_ options: SnapshotOptions) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (_, copy) = try Self.exportAndImport(scratch, options: options)
        try copy.exportSnapshot(to: scratch.sub("b"), options: options)
        let a = try WorldFixture.files(scratch.sub("a"))
        let b = try WorldFixture.files(scratch.sub("b"))
        #expect(a.keys.sorted() == b.keys.sorted())
        for (name, bytes) in a { #expect(bytes == b[name], "\(name) differs") }
        #expect((a["devices.jsonl"]?.count ?? 0) > 0)
    }

    @Test func importedWorldBehavesAsTheOriginal() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, copy) = try Self.exportAndImport(scratch, options: WorldFixture.options)
        #expect(copy.now == original.now)
        let expected = try WorldFixture.play(original)
        let actual = try WorldFixture.play(copy)
        #expect(expected.count > 20)
        #expect(actual == expected)
    }

    @Test func tokensAndGroupsKeepWorkingAfterImport() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, copy) = try Self.exportAndImport(scratch, options: SnapshotOptions(emulatorVersion: "test"))
        for info in try original.devices(projectId: DemoProject.id).page {
            #expect(copy.device(token: info.token)?.id == original.device(token: info.token)?.id)
        }
        let group = try copy.group(named: "family", projectIdOrNumber: DemoProject.id)
        #expect(group == (try original.group(named: "family", projectIdOrNumber: DemoProject.id)))
        #expect(copy.faultRules() == original.faultRules())
        // Without `include`, the event log starts empty but goes on numbering where it was.
        #expect(try copy.events(EventQuery()).isEmpty)
    }

    @Test func wallClockImportFiresWhatFellDueMeanwhile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let original = try WorldFixture.make()
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let later = original.now.adding(seconds: 30 * 86_400)
        let copy = Emulator(clock: .virtual(start: later))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .wall)
        #expect(copy.now == later)
        #expect(copy.clockStatus.nextTimer.map { $0 > later } ?? true)
        #expect(!(try copy.events(EventQuery(kinds: [.expired]))).isEmpty)
    }

    /// The tray (with its tags) and the count toward deprioritization
    /// are world state, kept without `include`, and behave the same after an import.
    @Test func theTrayAndDeprioritizationSurviveASnapshot() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        var settings = EmulatorSettings()
        settings.deprioritizeAfter = 2
        let original = Emulator(settings: settings, clock: .virtual(start: .virtualEpoch))
        let d = try original.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", state: .background), projectId: DemoProject.id)
        func send(_ emu: Emulator, _ content: MessageContent) throws {
            _ = try emu.send(SendRequest(target: .token(d.token), content: content, api: .v1), from: DemoProject.id)
        }
        let tagged = MessageContent(
            notification: NotificationContent(title: "1-0"), android: AndroidOptions(notification: [("tag", .string("match"))]))
        let high = MessageContent(data: [("k", "v")], priority: .high)
        try send(original, tagged)
        try send(original, MessageContent(notification: NotificationContent(title: "news")))
        try send(original, high)
        try send(original, high)
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let copy = Emulator(clock: .virtual(start: Instant(millis: 0)))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        #expect(copy.settings.deprioritizeAfter == 2)
        let tray = try copy.tray(String(d.id), projectId: DemoProject.id)
        #expect(tray.entries.map(\.tag) == ["match", nil] && tray.unshownHighPriority == 2)
        try send(copy, high)
        #expect(try copy.inbox(String(d.id), projectId: DemoProject.id).1.last?.priority == .normal)
        try send(copy, tagged)
        #expect(try copy.tray(String(d.id), projectId: DemoProject.id).entries.map(\.tag) == [nil, "match"])
    }

    /// The fixture world, exported to `a` and imported into a fresh emulator whose clock starts elsewhere.
    static func exportAndImport(_ scratch: ScratchDirectory, options: SnapshotOptions) throws -> (Emulator, Emulator) {
        let original = try WorldFixture.make()
        try original.exportSnapshot(to: scratch.sub("a"), options: options)
        let copy = Emulator(clock: .virtual(start: Instant(millis: 0)))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        return (original, copy)
    }
}
