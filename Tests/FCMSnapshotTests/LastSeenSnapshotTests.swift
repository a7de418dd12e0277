// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Testing

/// A snapshot keeps when each app was last seen, so token expiry continues
/// after an import as it would have, and refuses a last-seen time the clock cannot reach.
@Suite struct LastSeenSnapshotTests {
    private let day: Int64 = 86_400_000

    /// A device that connected at day 0 and refreshed its token (offline) at day 200.
    private func world() throws -> (Emulator, DeviceInfo) {
        let emu = Emulator(settings: EmulatorSettings(), clock: .virtual(start: .virtualEpoch))
        let d = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", state: .offline), projectId: DemoProject.id)
        _ = try emu.advance(byMillis: 200 * day)
        return (emu, try emu.refreshToken(String(d.id), projectId: DemoProject.id))
    }

    @Test func expiryCountsFromTheLastSeenTimeAfterImport() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, d) = try world()
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let copy = Emulator(settings: EmulatorSettings(), clock: .virtual(start: .virtualEpoch))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        // 300 days after it last connected, 100 after its refresh: not expired.
        _ = try copy.advance(byMillis: 100 * day)
        let send = SendRequest(target: .token(d.token), content: MessageContent(), api: .v1)
        _ = try copy.send(send, from: DemoProject.id)
        _ = try copy.advance(byMillis: 170 * day)
        #expect(throws: FCMError.self) { try copy.send(send, from: DemoProject.id) }
    }

    @Test func aLastSeenTimeBeyondTheClockIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, _) = try world()
        try original.exportSnapshot(to: scratch.sub("bad"), options: SnapshotOptions(emulatorVersion: "test"))
        var found = false
        try CorruptSnapshotTests.editLines(scratch.sub("bad"), "devices.jsonl") { lines in
            for i in lines.indices where lines[i].contains("\"lastSeenAt\":") {
                let (changed, count) = ImportRangeTests.replace(field: "lastSeenAt", in: lines[i], with: String(Int64.min))
                lines[i] = changed
                found = found || count > 0
            }
        }
        try #require(found)
        let copy = Emulator(settings: EmulatorSettings(), clock: .virtual(start: .virtualEpoch))
        let error = #expect(throws: SnapshotError.self) { try copy.importSnapshot(from: scratch.sub("bad"), clock: .snapshot) }
        #expect(error?.description.contains("lastSeenAt") == true)
    }
}
