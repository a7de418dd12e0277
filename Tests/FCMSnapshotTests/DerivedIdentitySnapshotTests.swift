// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// A snapshot writes every token and FID out in full; an import keeps derived the ones that are
/// the device's derived ones under the importing world's seed, and keeps the rest as given, so
/// every token still finds its device (`DeviceIdentities`).
@Suite struct DerivedIdentitySnapshotTests {
    private let project = DemoProject.id

    private func world(seed: UInt64) throws -> (Emulator, [DeviceInfo]) {
        var settings = EmulatorSettings()
        settings.seed = seed
        settings.tokenRefreshGraceSeconds = 600
        let emu = Emulator(settings: settings)
        var made: [DeviceInfo] = []
        for i in 0..<6 {
            made.append(try emu.createDevice(DeviceSpec(platform: i % 2 == 0 ? .android : .ios, appId: "a"), projectId: project))
        }
        made.append(
            try emu.createDevice(
                DeviceSpec(platform: .web, appId: "https://x", token: "own:APA91b-own", fid: "own-fid"), projectId: project))
        made.append(try emu.createDevice(DeviceSpec(platform: .android, appId: "a", fid: "own-fid-2"), projectId: project))
        made[1] = try emu.refreshToken(String(made[1].id), projectId: project)
        try emu.deleteDevice(String(made[2].id), projectId: project)
        _ = try emu.setState(String(made[3].id), projectId: project, to: .uninstalled)
        _ = try? emu.send(SendRequest(target: .token(made[3].token), content: MessageContent(), api: .v1), from: project)
        return (emu, made)
    }

    private func given(_ emu: Emulator) -> (tokens: Int, fids: Int) {
        emu.withWorld { w in (w.identities.givenTokens.count, w.identities.givenFids.count) }
    }

    private func expectSame(_ original: Emulator, _ copy: Emulator, _ made: [DeviceInfo]) throws {
        for d in made {
            #expect(copy.device(token: d.token)?.id == original.device(token: d.token)?.id)
            let before = try? original.device(String(d.id), projectId: project)
            let after = try? copy.device(String(d.id), projectId: project)
            #expect(after?.token == before?.token && after?.fid == before?.fid && after?.tokenValid == before?.tokenValid)
        }
    }

    @Test func derivedIdentifiersStayDerived() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, made) = try world(seed: 1)
        #expect(given(original) == (1, 2))
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let copy = Emulator()
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        #expect(given(copy) == (1, 2))
        try expectSame(original, copy, made)
        // The refreshed device's next token is a new one, not an earlier generation's.
        let next = try copy.refreshToken(String(made[1].id), projectId: project)
        #expect(next.token != made[1].token && copy.device(token: next.token)?.id == made[1].id)
    }

    /// A world made under another seed: its tokens are not this world's derived ones, so each is
    /// kept as given, and each still finds its device.
    @Test func anotherSeedsIdentifiersAreKeptAsGiven() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (original, made) = try world(seed: 1)
        let directory = scratch.sub("a")
        try original.exportSnapshot(to: directory, options: SnapshotOptions(emulatorVersion: "test"))
        let path = directory + "/world.jsonl"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"seed\":\"1\""))
        try text.replacingOccurrences(of: "\"seed\":\"1\"", with: "\"seed\":\"2\"").write(toFile: path, atomically: true, encoding: .utf8)
        let copy = Emulator()
        try copy.importSnapshot(from: directory, clock: .snapshot)
        // Seven live devices: seven tokens and seven FIDs given.
        #expect(given(copy) == (7, 7))
        try expectSame(original, copy, made)
        let made2 = try copy.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: project)
        #expect(copy.device(token: made2.token)?.id == made2.id && given(copy) == (7, 7))
    }
}
