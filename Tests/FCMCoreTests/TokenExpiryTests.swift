// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

/// Android tokens of apps FCM has not seen for 270 days are expired and refused as UNREGISTERED
/// (https://firebase.google.com/docs/cloud-messaging/manage-tokens).
@Suite struct TokenExpiryTests {
    private let day: Int64 = 86_400

    private func code(_ body: () throws -> Void) -> FCMError.Code? { thrownFCMError(body)?.code }

    @Test func androidTokenUnseenFor270DaysIsRefused() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 269 * day)
        #expect(code { try w.sendData(d) } == nil)
        try w.advance(seconds: day)
        #expect(code { try w.sendData(d) } == .unregistered)
        // By FID too, and as a device group's member.
        let fid = SendRequest(target: .fid(d.fid), content: MessageContent(), api: .v1)
        #expect(code { _ = try w.emu.send(fid, from: w.project) } == .unregistered)
    }

    @Test func onlyAndroidExpires() throws {
        let w = Harness()
        let phone = try w.device(.ios, state: .offline)
        let browser = try w.device(.web, state: .offline)
        try w.advance(seconds: 300 * day)
        #expect(code { try w.sendData(phone) } == nil)
        #expect(code { try w.sendData(browser) } == nil)
    }

    @Test func aConnectedAppIsSeen() throws {
        let w = Harness()
        let d = try w.device(state: .background)
        try w.advance(seconds: 300 * day)
        #expect(code { try w.sendData(d) } == nil)
        // Gone offline now: the count starts from here.
        try w.setState(d, .offline)
        try w.advance(seconds: 269 * day)
        #expect(code { try w.sendData(d) } == nil)
    }

    @Test func refreshingTheTokenIsBeingSeen() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 200 * day)
        let refreshed = try w.emu.refreshToken(String(d.id), projectId: w.project)
        try w.advance(seconds: 200 * day)
        #expect(code { try w.sendData(refreshed) } == nil)
    }

    @Test func theAppBackAfterExpiryGetsANewToken() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 270 * day)
        try w.setState(d, .foreground)
        let back = try w.info(d)
        #expect(back.token != d.token)
        #expect(code { try w.sendData(d) } == .unregistered)
        #expect(code { try w.sendData(back) } == nil)
        #expect(try w.events(d, .tokenRefreshed).count == 1)
    }

    @Test func zeroDaysTurnsExpiryOff() throws {
        let w = Harness { $0.staleTokenDays = 0 }
        let d = try w.device(state: .offline)
        try w.advance(seconds: 1000 * day)
        #expect(code { try w.sendData(d) } == nil)
    }

    @Test func aSmallerSettingExpiresSooner() throws {
        let w = Harness { $0.staleTokenDays = 1 }
        let d = try w.device(state: .offline)
        try w.advance(seconds: day)
        #expect(code { try w.sendData(d) } == .unregistered)
    }
}
