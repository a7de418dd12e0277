// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Testing

/// An `android_v2` message's type survives a snapshot, in the stored messages and in the tray, and
/// behaves the same after an import (docs/http-v1.md, "android_v2").
@Suite struct AndroidV2SnapshotTests {
    @Test func theMessageTypeRoundTrips() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let original = Emulator(clock: .virtual(start: .virtualEpoch))
        let d = try original.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", state: .doze), projectId: DemoProject.id)
        func send(_ emu: Emulator, _ android: AndroidOptions) throws {
            _ = try emu.send(SendRequest(target: .token(d.token), content: MessageContent(android: android), api: .v1), from: DemoProject.id)
        }
        let remote = AndroidOptions(
            notification: [("title", .string("1-0")), ("tag", .string("score")), ("id", .int(7))],
            v2: .remoteNotification(mutableContent: true, useAsV1DataMessage: true))
        try send(original, remote)
        try send(original, AndroidOptions(data: [("sync", "inbox")], v2: .backgroundSync))
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(include: [.inboxes], emulatorVersion: "test"))
        let copy = Emulator(clock: .virtual(start: Instant(millis: 0)))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        let shown = try copy.tray(String(d.id), projectId: DemoProject.id).entries
        #expect(shown.map { $0.delivery.message?.content.android?.v2 } == [.remoteNotification(mutableContent: true, useAsV1DataMessage: true)])
        let stored = try copy.storedMessages(String(d.id), projectId: DemoProject.id).1
        #expect(stored.count == 1)
        // The same (tag, id) still replaces the restored notification.
        try send(copy, remote)
        #expect(try copy.tray(String(d.id), projectId: DemoProject.id).entries.count == 1)
        _ = try copy.advance(byMillis: 15 * 60 * 1000)
        let last = try #require(try copy.inbox(String(d.id), projectId: DemoProject.id).1.last)
        #expect(last.callback(on: .android) == "onBackgroundSyncReceived")
    }

    /// A legacy client stays one: its messages still reach `onMessageReceived` after an import.
    @Test func theClientSDKRoundTrips() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let original = Emulator(clock: .virtual(start: .virtualEpoch))
        var spec = DeviceSpec(platform: .android, appId: "com.example.app", state: .background)
        spec.clientSdk = .legacy
        let legacy = try original.createDevice(spec, projectId: DemoProject.id)
        let current = try original.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let copy = Emulator(clock: .virtual(start: Instant(millis: 0)))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        #expect(try copy.device(String(legacy.id), projectId: DemoProject.id).clientSdk == .legacy)
        #expect(try copy.device(String(current.id), projectId: DemoProject.id).clientSdk == .current)
        let data = AndroidOptions(v2: .remoteNotification(mutableContent: false, useAsV1DataMessage: true))
        _ = try copy.send(SendRequest(target: .token(legacy.token), content: MessageContent(android: data), api: .v1), from: DemoProject.id)
        let delivery = try #require(try copy.inbox(String(legacy.id), projectId: DemoProject.id).1.last)
        #expect(delivery.handling == .app)
    }
}
