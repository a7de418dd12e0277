// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

/// A real receiver's registration and its MCS outbox (docs/receivers.md, "Real receivers"), at
/// the world's level: what the fronts and the MCS server call.
@Suite("Real receivers: registration and delivery owed over MCS")
struct ReceiverTests {
    /// A checked-in, registered receiver: its check-in, GCM token and FCM token.
    struct Receiver {
        let androidId: UInt64
        let securityToken: UInt64
        let gcmToken: String
        let token: String
        let fid: String
        let refreshToken: String
    }

    static let p256dh: [UInt8] = [4] + Array(repeating: 7, count: 64)

    func register(_ w: Harness, fid: String = "fYUw2cKvjQoY/PSNOsACiYQ=") throws -> Receiver {
        let checkin = try w.emu.checkin(androidId: nil, securityToken: nil)
        let gcm = try w.emu.registerGCM(
            androidId: checkin.androidId, securityToken: checkin.securityToken, app: "org.chromium.linux", subtype: "wp:receiver.push.com#1",
            sender: "BDOU99")
        let installation = try w.emu.createInstallation(project: w.project, fid: fid, appId: "1:123:web:abc")
        let made = try w.emu.createRegistration(
            project: w.project, authToken: installation.authToken,
            web: WebRegistration(gcmToken: gcm, p256dh: Self.p256dh, auth: Array(repeating: 1, count: 16), applicationServerKey: nil))
        return Receiver(
            androidId: checkin.androidId, securityToken: checkin.securityToken, gcmToken: gcm, token: made.token, fid: installation.fid,
            refreshToken: installation.refreshToken)
    }

    func send(_ w: Harness, _ r: Receiver, _ value: String, collapseKey: String? = nil, ttl: Int64? = nil) throws {
        try w.emu.send(
            SendRequest(
                target: .token(r.token), content: MessageContent(data: [("k", value)], collapseKey: collapseKey, ttlSeconds: ttl), api: .v1),
            from: w.project)
    }

    func values(_ out: [ReceiverDelivery]?) -> [String?] {
        (out ?? []).map { $0.delivery.message?.content.data.first?.1 }
    }

    @Test func aRegistrationIsAnOfflineWebDeviceUntilItsReceiverLogsIn() throws {
        let w = Harness()
        let r = try register(w)
        let device = try w.emu.device(r.token, projectId: w.project)
        #expect(device.platform == .web)
        #expect(device.state == .offline)
        try send(w, r, "1")
        #expect(try w.emu.device(r.token, projectId: w.project).storedCount == 1)
        let connection = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        #expect(try w.emu.device(r.token, projectId: w.project).state == .foreground)
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: connection)) == ["1"])
        // Written once: the next read has nothing new.
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: connection)) == [])
    }

    @Test func unacknowledgedDeliveriesAreSentAgainAfterTheNextLoginAndAcknowledgedOnesNever() throws {
        let w = Harness()
        let r = try register(w)
        let first = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        for value in ["1", "2", "3"] { try send(w, r, value) }
        let sent = try #require(w.emu.receiverOutgoing(androidId: r.androidId, connection: first))
        #expect(values(sent) == ["1", "2", "3"])
        w.emu.acknowledge(androidId: r.androidId, ids: [sent[0].persistentId])
        w.emu.receiverDisconnected(androidId: r.androidId, connection: first)
        #expect(try w.emu.device(r.token, projectId: w.project).state == .offline)
        // The login lists "2" as received: only "3" comes again.
        let second = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [sent[1].persistentId])
        let again = try #require(w.emu.receiverOutgoing(androidId: r.androidId, connection: second))
        #expect(values(again) == ["3"])
        #expect(again[0].persistentId == sent[2].persistentId)
        w.emu.acknowledge(androidId: r.androidId, ids: [again[0].persistentId])
        w.emu.receiverDisconnected(androidId: r.androidId, connection: second)
        let third = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: third)) == [])
    }

    @Test func storedWhileAwayByFCMsRulesThenDeliveredInOrder() throws {
        let w = Harness()
        let r = try register(w)
        try send(w, r, "a", collapseKey: "score")
        try send(w, r, "b", collapseKey: "score")
        try send(w, r, "short", ttl: 60)
        try send(w, r, "c")
        try w.advance(seconds: 120)
        let connection = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        // The collapse key kept the last; the TTL passed while it was away.
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: connection)) == ["b", "c"])
    }

    @Test func aSentMessageWhoseTTLPassesBeforeItIsAcknowledgedIsNotSentAgain() throws {
        let w = Harness()
        let r = try register(w)
        let first = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        try send(w, r, "brief", ttl: 30)
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: first)) == ["brief"])
        w.emu.receiverDisconnected(androidId: r.androidId, connection: first)
        try w.advance(seconds: 31)
        let second = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        #expect(values(w.emu.receiverOutgoing(androidId: r.androidId, connection: second)) == [])
    }

    @Test func aNewLoginSupersedesTheOldConnection() throws {
        let w = Harness()
        let r = try register(w)
        let first = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        let second = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        #expect(w.emu.receiverOutgoing(androidId: r.androidId, connection: first) == nil)
        #expect(w.emu.receiverOutgoing(androidId: r.androidId, connection: second) != nil)
        // The old connection closing does not take the device offline.
        w.emu.receiverDisconnected(androidId: r.androidId, connection: first)
        #expect(try w.emu.device(r.token, projectId: w.project).state == .foreground)
    }

    @Test func aReceiverThatAcknowledgesNothingIsDisconnectedAtItsCapAndTheRestIsStored() throws {
        let w = Harness()
        let r = try register(w)
        let connection = try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken, received: [])
        for i in 0..<300 { try send(w, r, String(i)) }
        #expect(w.emu.receiverOutgoing(androidId: r.androidId, connection: connection) == nil)
        let device = try w.emu.device(r.token, projectId: w.project)
        #expect(device.state == .offline)
        // 256 owed; the other 44 stored by FCM's rules.
        #expect(device.storedCount == 300 - 256)
    }

    @Test func loginAndRegistrationRefuseWrongCredentials() throws {
        let w = Harness()
        let r = try register(w)
        #expect(throws: ReceiverRefusal.self) { try w.emu.receiverLogin(androidId: r.androidId, securityToken: r.securityToken &+ 1, received: []) }
        #expect(throws: ReceiverRefusal.self) {
            try w.emu.registerGCM(androidId: r.androidId, securityToken: 1, app: "a", subtype: "", sender: "s")
        }
        #expect(throws: ReceiverRefusal.self) { try w.emu.checkin(androidId: r.androidId, securityToken: r.securityToken &+ 1) }
        // The same pair checks in again unchanged.
        let again = try w.emu.checkin(androidId: r.androidId, securityToken: r.securityToken)
        #expect(again.androidId == r.androidId)
    }

    @Test func deletingTheInstallationUnregistersItsToken() throws {
        let w = Harness()
        let r = try register(w)
        #expect(throws: ReceiverRefusal.self) { try w.emu.deleteInstallation(project: w.project, fid: r.fid, refreshToken: "wrong") }
        try w.emu.deleteInstallation(project: w.project, fid: r.fid, refreshToken: r.refreshToken)
        let error = #expect(throws: FCMError.self) { try send(w, r, "x") }
        #expect(error?.code == .unregistered)
    }

    @Test func theSameRegistrationGivesTheSameTokens() throws {
        let w = Harness()
        let checkin = try w.emu.checkin(androidId: nil, securityToken: nil)
        let a = try w.emu.registerGCM(androidId: checkin.androidId, securityToken: checkin.securityToken, app: "x", subtype: "s", sender: "k")
        let b = try w.emu.registerGCM(androidId: checkin.androidId, securityToken: checkin.securityToken, app: "x", subtype: "s", sender: "k")
        #expect(a == b)
        #expect(!a.contains("=") && !a.contains("Error"))
    }
}
