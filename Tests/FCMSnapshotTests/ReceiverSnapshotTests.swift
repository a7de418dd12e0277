// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// A real receiver's registrations survive a snapshot, offline, and its persisted client logs in
/// again after the import (docs/receivers.md, docs/snapshots.md).
@Suite struct ReceiverSnapshotTests {
    struct Receiver {
        let androidId: UInt64
        let securityToken: UInt64
        let token: String
        let gcm: String
        let refreshToken: String
    }

    static let p256dh = Base64URLCodec.decode("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8") ?? []

    private func source() throws -> (Emulator, Receiver) {
        let emu = Emulator()
        let checkin = try emu.checkin(androidId: nil, securityToken: nil)
        let gcm = try emu.registerGCM(
            androidId: checkin.androidId, securityToken: checkin.securityToken, app: "org.chromium.linux", subtype: "wp:x#1", sender: "BDOU")
        let installation = try emu.createInstallation(project: DemoProject.id, fid: "fYUw2cKvjQoY/PSNOsACiYQ=", appId: "1:1:web:1")
        let token = try emu.createRegistration(
            project: DemoProject.id, authToken: installation.authToken,
            web: WebRegistration(gcmToken: gcm, p256dh: Self.p256dh, auth: Array(repeating: 3, count: 16), applicationServerKey: Self.p256dh)
        ).token
        _ = try emu.receiverLogin(androidId: checkin.androidId, securityToken: checkin.securityToken, received: [])
        return (emu, Receiver(androidId: checkin.androidId, securityToken: checkin.securityToken, token: token, gcm: gcm,
                              refreshToken: installation.refreshToken))
    }

    @Test func registrationsRoundTripAndTheReceiverLogsInAgain() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (emu, r) = try source()
        try emu.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        let copy = Emulator()
        try copy.importSnapshot(from: scratch.sub("s"), clock: .snapshot)
        let device = try copy.device(r.token, projectId: DemoProject.id)
        #expect(device.receiver?.gcmToken == r.gcm)
        #expect(device.receiver?.applicationServerKey == Self.p256dh)
        #expect(device.webPush == nil)
        // No connection survives an import: offline, and stored for the receiver until it logs in.
        #expect(device.state == .offline && !device.receiverConnected)
        try copy.send(
            SendRequest(target: .token(r.token), content: MessageContent(data: [("k", "v")]), api: .v1), from: DemoProject.id)
        let connection = try copy.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        #expect(copy.receiverOutgoing(androidId: r.androidId, connection: connection)?.count == 1)
        // The check-in, GCM registration and installation are the same ones.
        let again = try copy.registerGCM(
            androidId: r.androidId, securityToken: r.securityToken, app: "org.chromium.linux", subtype: "wp:x#1", sender: "BDOU")
        #expect(again == r.gcm)
        try copy.deleteInstallation(project: DemoProject.id, fid: "fYUw2cKvjQoY_PSNOsACiY", refreshToken: r.refreshToken)
        #expect(throws: FCMError.self) {
            try copy.send(SendRequest(target: .token(r.token), content: MessageContent(data: [("k", "v")]), api: .v1), from: DemoProject.id)
        }
        // Export, import, export again: the same bytes.
        try copy.exportSnapshot(to: scratch.sub("t"), options: WorldFixture.options)
    }

    @Test func aReceiverDeviceDeletedThroughTheControlAPIStillExportsAndImports() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (emu, r) = try source()
        try emu.deleteDevice(r.token, projectId: DemoProject.id)
        try emu.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        let copy = Emulator()
        try copy.importSnapshot(from: scratch.sub("s"), clock: .snapshot)
        let again = try copy.registerGCM(
            androidId: r.androidId, securityToken: r.securityToken, app: "org.chromium.linux", subtype: "wp:x#1", sender: "BDOU")
        #expect(again == r.gcm)
    }

    @Test func aLinkToNoRegistrationIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (emu, r) = try source()
        try emu.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        var edited = 0
        try CorruptSnapshotTests.editLines(scratch.sub("s"), "world.jsonl") { lines in
            for i in lines.indices where lines[i].contains(#""type":"receivers""#) {
                lines[i] = lines[i].replacingOccurrences(of: #""gcmToken":"\#(r.gcm)","app""#, with: #""gcmToken":"other","app""#)
                edited += 1
            }
        }
        try #require(edited == 1)
        #expect(throws: SnapshotError.self) { try Emulator().importSnapshot(from: scratch.sub("s"), clock: .snapshot) }
    }
}
