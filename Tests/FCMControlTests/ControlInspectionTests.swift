// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// The routes behind the dashboard's search, "holding now" and timers views.
@Suite("Control API: search, stored messages, timers")
struct ControlInspectionTests {
    let base = "/emulator/v1/projects/demo-fcm-emu"

    @Test func theDeviceListSearchesByTextPlatformAndState() throws {
        let api = InProcess()
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"web","count":300}"#, status: 201)
        let needle = try api.json("POST", "\(base)/devices", #"{"platform":"ios","name":"Kitchen iPad","state":"offline"}"#, status: 201)
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","count":50,"state":"doze"}"#, status: 201)
        let token = try #require(needle.string("token"))

        let byName = try api.json("GET", "\(base)/devices?q=kitchen")
        #expect(byName.at("total")?.int64Value == 1)
        #expect(byName.string("devices.0.id") == needle.string("id"))
        let byToken = try api.json("GET", "\(base)/devices?q=\(token.dropFirst(20).prefix(30))")
        #expect(byToken.at("total")?.int64Value == 1)
        #expect(byToken.string("devices.0.token") == token)
        #expect(try api.json("GET", "\(base)/devices?platform=ios").at("total")?.int64Value == 1)
        #expect(try api.json("GET", "\(base)/devices?state=doze").at("total")?.int64Value == 50)
        // Paged over the matches: total counts them, nextOffset walks them.
        let page = try api.json("GET", "\(base)/devices?platform=web&offset=290&limit=5")
        #expect(page.at("total")?.int64Value == 300)
        #expect(page.at("devices")?.arrayValue?.count == 5)
        #expect(page.at("nextOffset")?.int64Value == 295)
        #expect(try api.json("GET", "\(base)/devices?platform=web&state=doze").at("total")?.int64Value == 0)

        #expect(try api.json("GET", "\(base)/devices?platform=nokia", status: 400).string("error.field") == "platform")
        #expect(try api.json("GET", "\(base)/devices?serach=x", status: 400).string("error.field") == "serach")
    }

    @Test func storedMessagesAndTimersShowWhatWaitsAndRunToTheNextOne() throws {
        let api = InProcess()
        let device = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"away","state":"offline"}"#, status: 201)
        let token = try #require(device.string("token"))
        let long = MessageContent(data: [("room", "42"), ("kind", "chat")], notification: NotificationContent(title: "Hi"), ttlSeconds: 7200)
        let short = MessageContent(data: [("n", "1")], collapseKey: "score", ttlSeconds: 600)
        let first = try api.emulator.send(SendRequest(target: .token(token), content: long, api: .v1), from: DemoProject.id)
        let second = try api.emulator.send(SendRequest(target: .token(token), content: short, api: .v1), from: DemoProject.id)

        let stored = try api.json("GET", "\(base)/devices/away/stored")
        #expect(stored.at("stored")?.arrayValue?.count == 2)
        #expect(stored.string("stored.0.messageId") == first.messageId)
        #expect(stored.string("stored.0.title") == "Hi")
        #expect(stored.string("stored.0.dataSummary") == "room=42, kind=chat")
        #expect(stored.string("stored.0.expiresAt") == "2026-01-01T02:00:00.000Z")
        #expect(stored.string("stored.1.collapseKey") == "score")
        #expect(try api.json("GET", "\(base)/events?kind=accepted").string("events.0.title") == "Hi")

        // Timers in the order they fire: the 10-minute expiry first.
        let timers = try api.json("GET", "/emulator/v1/clock/timers")
        #expect(timers.at("total")?.int64Value == 2)
        #expect(timers.string("timers.0.what") == "expiry")
        #expect(timers.string("timers.0.messageId") == second.messageId)
        #expect(timers.string("timers.0.at") == "2026-01-01T00:10:00.000Z")
        #expect(timers.string("timers.0.project") == DemoProject.id)
        #expect(timers.string("timers.1.messageId") == first.messageId)
        let paged = try api.json("GET", "/emulator/v1/clock/timers?offset=1&limit=1")
        #expect(paged.string("timers.0.messageId") == first.messageId)
        #expect(paged.at("nextOffset") == nil)
        #expect(try api.json("GET", "/emulator/v1/clock/timers?limit=1").at("nextOffset")?.int64Value == 1)

        // "Run to the next one": advance to its time; the message it was for expires.
        _ = try api.json("POST", "/emulator/v1/clock:advance", #"{"to":"\#(try #require(timers.string("timers.0.at")))"}"#)
        let after = try api.json("GET", "\(base)/devices/away/stored")
        #expect(after.at("stored")?.arrayValue?.count == 1)
        #expect(try api.json("GET", "\(base)/events?kind=expired").string("events.0.messageId") == second.messageId)

        #expect(try api.json("GET", "/emulator/v1/clock/timers?limit=1001", status: 400).string("error.field") == "limit")
        #expect(try api.json("GET", "\(base)/devices/nobody/stored", status: 404).string("error.status") == "NOT_FOUND")
    }
}
