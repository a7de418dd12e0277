// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

/// A device's token and FID, derived or given (`DeviceIdentities`), behave alike: found by token
/// and FID while current, retired on refresh, deletion and uninstall, never issued twice.
@Suite struct DeviceIdentityTests {
    private let project = DemoProject.id

    private func code(_ body: () throws -> Void) -> FCMError.Code? { thrownFCMError(body)?.code }

    private func given(_ w: World) -> (tokens: Int, valid: Int, fids: Int) {
        (w.identities.givenTokens.count, w.identities.deviceByGivenToken.count, w.identities.givenFids.count)
    }

    @Test func aMadeDeviceKeepsNothingAndIsFoundByTokenAndFid() throws {
        let emu = Emulator()
        let d = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: project)
        #expect(d.token.hasPrefix(d.fid + ":APA91b") && d.token.utf8.count == 163)
        #expect(emu.withWorld { given($0) } == (0, 0, 0))
        #expect(emu.device(token: d.token)?.id == d.id)
        #expect(try emu.device(d.fid, projectId: project).id == d.id)
        #expect(try emu.device(d.token, projectId: project).id == d.id)
        _ = try emu.send(SendRequest(target: .fid(d.fid), content: MessageContent(data: [("k", "v")]), api: .v1), from: project)
        _ = try emu.send(SendRequest(target: .token(d.token), content: MessageContent(data: [("k", "v")]), api: .v1), from: project)
        #expect(try emu.inbox(String(d.id), projectId: project).1.count == 2)
    }

    @Test func aRefreshRetiresTheDerivedTokenAndKeepsTheFid() throws {
        var settings = EmulatorSettings()
        settings.tokenRefreshGraceSeconds = 60
        let emu = Emulator(settings: settings)
        let d = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: project)
        let fresh = try emu.refreshToken(String(d.id), projectId: project)
        #expect(fresh.token != d.token && fresh.fid == d.fid && fresh.token.hasPrefix(d.fid + ":APA91b"))
        #expect(emu.device(token: d.token) == nil)
        #expect(emu.device(token: fresh.token)?.id == d.id)
        // The old token answers with the new one while the grace period lasts.
        let outcome = try emu.send(SendRequest(target: .token(d.token), content: MessageContent(), api: .legacy), from: project)
        #expect(outcome.canonicalToken == fresh.token)
        // Given, then derived again: each old token retired, the new one found.
        let mine = try emu.refreshToken(String(d.id), projectId: project, newToken: "mine:APA91b-given")
        #expect(emu.withWorld { given($0) } == (1, 1, 0))
        let again = try emu.refreshToken(String(d.id), projectId: project)
        #expect(emu.withWorld { given($0) } == (0, 0, 0))
        #expect(emu.device(token: mine.token) == nil && emu.device(token: again.token)?.id == d.id)
        #expect(Set([d.token, fresh.token, mine.token, again.token]).count == 4)
    }

    @Test func deletionAndUninstallRetireTheToken() throws {
        let emu = Emulator()
        let gone = try emu.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: project)
        let removed = try emu.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: project)
        try emu.setState(String(gone.id), projectId: project, to: .uninstalled)
        _ = thrownFCMError { _ = try emu.send(SendRequest(target: .token(gone.token), content: MessageContent(), api: .v1), from: project) }
        #expect(
            code { _ = try emu.send(SendRequest(target: .token(gone.token), content: MessageContent(), api: .v1), from: project) }
                == .unregistered)
        #expect(emu.device(token: gone.token) == nil)
        try emu.deleteDevice(String(removed.id), projectId: project)
        #expect(emu.device(token: removed.token) == nil)
        #expect(
            code { _ = try emu.send(SendRequest(target: .token(removed.token), content: MessageContent(), api: .v1), from: project) }
                == .unregistered)
        #expect(
            code { _ = try emu.send(SendRequest(target: .fid(removed.fid), content: MessageContent(), api: .v1), from: project) }
                == .unregistered)
    }

    @Test func givenTokensAndFidsAreKeptAndNeverIssuedTwice() throws {
        let emu = Emulator()
        let made = try emu.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: project)
        let mine = try emu.createDevice(
            DeviceSpec(platform: .android, appId: "a", token: "fid-of-mine:APA91b-mine", fid: "fid-of-mine"), projectId: project)
        #expect(emu.withWorld { given($0) } == (1, 1, 1))
        #expect(emu.device(token: mine.token)?.id == mine.id)
        #expect(try emu.device("fid-of-mine", projectId: project).id == mine.id)
        // Another device's token, derived or given, is refused; so is its FID in the same project.
        #expect(
            code { _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "a", token: made.token), projectId: project) }
                == .conflict)
        #expect(
            code { _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "a", token: mine.token), projectId: project) }
                == .conflict)
        #expect(
            code { _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "a", fid: made.fid), projectId: project) } == .conflict)
        #expect(
            code { _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "a", fid: "fid-of-mine"), projectId: project) }
                == .conflict)
        // A refused device keeps nothing.
        #expect(emu.withWorld { given($0) } == (1, 1, 1))
        // A given FID with a derived token: the token starts with the given FID.
        let half = try emu.createDevice(DeviceSpec(platform: .ios, appId: "a", fid: "half-given"), projectId: project)
        #expect(half.token.hasPrefix("half-given:APA91b") && emu.device(token: half.token)?.id == half.id)
        try emu.deleteDevice(String(mine.id), projectId: project)
        try emu.deleteDevice(String(half.id), projectId: project)
        #expect(emu.withWorld { given($0) } == (0, 0, 0))
    }

    /// A token the emulator would derive for a later device, given first, makes that device skip
    /// to its next generation instead of sharing it.
    @Test func aDerivedTokenGivenEarlierIsSkipped() throws {
        let emu = Emulator()
        let next = emu.withWorld { w in w.identities.derived.token(device: DeviceID(w.devices.count + 1), generation: 0, givenFid: nil) }
        let squatter = try emu.createDevice(DeviceSpec(platform: .android, appId: "a", token: next), projectId: project)
        let d = try emu.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: project)
        #expect(d.token != next && emu.device(token: d.token)?.id == d.id && emu.device(token: next)?.id == squatter.id)
        #expect(emu.withWorld { $0.devices[Int(d.id)]?.tokenGeneration } == 1)
    }
}
