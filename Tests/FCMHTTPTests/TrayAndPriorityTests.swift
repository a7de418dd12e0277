// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// What the user sees (the tray, replaced by tag), the APNs priority
/// an iOS app's message went with, and Android's deprioritization of high-priority messages that
/// show nothing, as a test reads them through the fronts and the control API.
@Suite("Tray, APNs priority and deprioritization")
struct TrayAndPriorityTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"
    let devices = "/emulator/v1/projects/demo-fcm-emu/devices"

    private func api(_ configure: (inout EmulatorSettings) -> Void = { _ in }) -> InProcess {
        var settings = EmulatorSettings()
        configure(&settings)
        return InProcess(Emulator(settings: settings))
    }

    private func device(_ api: InProcess, _ platform: String, state: String = "background") throws -> (id: String, token: String) {
        let d = try api.json("POST", devices, #"{"platform":"\#(platform)","state":"\#(state)"}"#, status: 201)
        return (try #require(d.string("id")), try #require(d.string("token")))
    }

    private func v1(_ api: InProcess, _ message: String) throws {
        _ = try api.json("POST", send, #"{"message":\#(message)}"#)
    }

    private func legacy(_ api: InProcess, _ body: String) {
        let response = api.call("POST", "/fcm/send", body, headers: [("Authorization", "key=\(DemoProject.serverKey)")])
        #expect(response.status == 200, "\(response.bodyText)")
    }

    private func inbox(_ api: InProcess, _ id: String) throws -> [JSONValue] {
        try api.json("GET", "\(devices)/\(id)/inbox").at("deliveries")?.arrayValue ?? []
    }

    private func tray(_ api: InProcess, _ id: String) throws -> JSONValue { try api.json("GET", "\(devices)/\(id)/tray") }

    // MARK: - The tray, replaced by tag

    @Test func androidTagReplacesTheShownNotificationAndNoTagReplacesNothing() throws {
        let api = api()
        let d = try device(api, "android")
        for score in ["1-0", "2-0"] {
            try v1(api, #"{"token":"\#(d.token)","notification":{"title":"\#(score)"},"android":{"notification":{"tag":"match"}}}"#)
        }
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"news"}}"#)
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"more news"}}"#)
        // Legacy `notification.tag` is the same tag.
        legacy(api, #"{"to":"\#(d.token)","notification":{"title":"3-0","tag":"match"}}"#)
        #expect(try inbox(api, d.id).count == 5)
        let shown = try #require(try tray(api, d.id).at("notifications")?.arrayValue)
        #expect(shown.map { $0.string("payload.notification.title") } == ["news", "more news", "3-0"])
        #expect(shown.map { $0.string("tag") } == [nil, nil, "match"])
    }

    @Test func iosCollapseIdAndWebTagReplace() throws {
        let api = api()
        let phone = try device(api, "ios")
        let browser = try device(api, "web")
        for title in ["a", "b"] {
            try v1(api, #"{"token":"\#(phone.token)","notification":{"title":"\#(title)"},"apns":{"headers":{"apns-collapse-id":"c"}}}"#)
            try v1(api, #"{"token":"\#(browser.token)","webpush":{"notification":{"title":"\#(title)","tag":"c"}}}"#)
        }
        for id in [phone.id, browser.id] {
            let shown = try #require(try tray(api, id).at("notifications")?.arrayValue)
            #expect(shown.count == 1 && shown.first?.string("tag") == "c", "\(id)")
        }
    }

    @Test func foregroundAndDataMessagesShowNothing() throws {
        let api = api()
        let front = try device(api, "android", state: "foreground")
        let back = try device(api, "android")
        try v1(api, #"{"token":"\#(front.token)","notification":{"title":"t"}}"#)
        try v1(api, #"{"token":"\#(back.token)","data":{"k":"v"}}"#)
        #expect(try tray(api, front.id).at("notifications")?.arrayValue?.isEmpty == true)
        #expect(try tray(api, back.id).at("notifications")?.arrayValue?.isEmpty == true)
    }

    @Test func androidShowsAtMostFiftyAndRefusesTheNextUnlessItReplaces() throws {
        let api = api()
        let d = try device(api, "android")
        for i in 0..<51 {
            try v1(api, #"{"token":"\#(d.token)","notification":{"title":"n\#(i)"},"android":{"notification":{"tag":"t\#(i)"}}}"#)
        }
        var shown = try #require(try tray(api, d.id).at("notifications")?.arrayValue)
        #expect(shown.count == 50 && shown.last?.string("tag") == "t49")
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"update"},"android":{"notification":{"tag":"t0"}}}"#)
        shown = try #require(try tray(api, d.id).at("notifications")?.arrayValue)
        #expect(shown.count == 50 && shown.last?.string("payload.notification.title") == "update")
    }

    @Test func iosKeepsTheNewestFifty() throws {
        let api = api()
        let d = try device(api, "ios")
        for i in 0..<51 { try v1(api, #"{"token":"\#(d.token)","notification":{"title":"n\#(i)"}}"#) }
        let shown = try #require(try tray(api, d.id).at("notifications")?.arrayValue)
        #expect(shown.count == 50)
        #expect(shown.first?.string("payload.aps.alert.title") == "n1" && shown.last?.string("payload.aps.alert.title") == "n50")
    }

    @Test func uninstallAndDeleteEmptyTheTray() throws {
        let api = api()
        let d = try device(api, "android")
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"t"}}"#)
        _ = try api.json("DELETE", "\(devices)/\(d.id)/tray")
        #expect(try tray(api, d.id).at("notifications")?.arrayValue?.isEmpty == true)
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"t"}}"#)
        _ = try api.json("POST", "\(devices)/\(d.id):uninstall")
        #expect(try tray(api, d.id).at("notifications")?.arrayValue?.isEmpty == true)
    }

    // MARK: - High priority that shows nothing

    @Test func highPriorityDataShowingNothingIsDemotedAfterTheSetting() throws {
        let api = api { $0.deprioritizeAfter = 3 }
        let d = try device(api, "android")
        let high = #"{"token":"\#(d.token)","data":{"k":"v"},"android":{"priority":"HIGH"}}"#
        for _ in 0..<4 { try v1(api, high) }
        let priorities = try inbox(api, d.id).map { [$0.string("priority"), $0.string("payload.priority"), $0.string("payload.originalPriority")] }
        #expect(priorities.prefix(3).allSatisfy { $0 == ["high", "high", "high"] })
        #expect(priorities.last == ["normal", "normal", "high"])
        #expect(try tray(api, d.id).at("unshownHighPriority") == .int(3))

        // A notification shown clears the count: high priority again.
        try v1(api, #"{"token":"\#(d.token)","notification":{"title":"t"}}"#)
        try v1(api, high)
        #expect(try inbox(api, d.id).last?.string("priority") == "high")
        #expect(try tray(api, d.id).at("unshownHighPriority") == .int(1))
    }

    @Test func aDemotedMessageWaitsOutDozeAsNormalPriorityDoes() throws {
        let api = api { $0.deprioritizeAfter = 1 }
        let d = try device(api, "android", state: "doze")
        let high = #"{"token":"\#(d.token)","data":{"k":"v"},"android":{"priority":"HIGH"}}"#
        try v1(api, high)
        try v1(api, high)
        #expect(try inbox(api, d.id).count == 1)
        _ = try api.json("PATCH", "\(devices)/\(d.id)", #"{"state":"foreground"}"#)
        let last = try #require(try inbox(api, d.id).last)
        #expect(last.string("priority") == "normal" && last.string("originalPriority") == "high")
    }

    @Test func theAppShowingANotificationKeepsItsPriority() throws {
        let api = api { $0.deprioritizeAfter = 1 }
        let d = try device(api, "android")
        let high = #"{"token":"\#(d.token)","data":{"k":"v"},"android":{"priority":"HIGH"}}"#
        try v1(api, high)
        let messageId = try #require(try inbox(api, d.id).last?.string("messageId"))
        let shown = try api.json("POST", "\(devices)/\(d.id)/tray", #"{"messageId":"\#(messageId)","tag":"chat"}"#, status: 201)
        #expect(shown.at("unshownHighPriority") == .int(0) && shown.string("notifications.0.tag") == "chat")
        try v1(api, high)
        #expect(try inbox(api, d.id).last?.string("priority") == "high")
        _ = try api.json("POST", "\(devices)/\(d.id)/tray", #"{"messageId":"0:nope"}"#, status: 404)
    }

    @Test func zeroTurnsDeprioritizationOffAndForegroundDoesNotCount() throws {
        let off = api { $0.deprioritizeAfter = 0 }
        let d = try device(off, "android")
        for _ in 0..<5 { try v1(off, #"{"token":"\#(d.token)","data":{"k":"v"},"android":{"priority":"HIGH"}}"#) }
        #expect(try inbox(off, d.id).allSatisfy { $0.string("priority") == "high" })

        let on = api { $0.deprioritizeAfter = 1 }
        let f = try device(on, "android", state: "foreground")
        for _ in 0..<3 { try v1(on, #"{"token":"\#(f.token)","data":{"k":"v"},"android":{"priority":"HIGH"}}"#) }
        #expect(try inbox(on, f.id).allSatisfy { $0.string("priority") == "high" })
    }

    // MARK: - APNs priority and the sound dictionary

    @Test func iosDeliveriesShowTheAPNsPriority() throws {
        let api = api()
        let d = try device(api, "ios")
        legacy(api, #"{"to":"\#(d.token)","priority":"high","notification":{"title":"t"}}"#)
        legacy(api, #"{"to":"\#(d.token)","priority":"normal","notification":{"title":"t"}}"#)
        // Content-available and nothing to show: a background update, sent at 5 whatever was asked.
        legacy(api, #"{"to":"\#(d.token)","priority":"high","content_available":true,"data":{"k":"v"}}"#)
        try v1(api, #"{"token":"\#(d.token)","apns":{"headers":{"apns-priority":"1"},"payload":{"aps":{"alert":"a"}}}}"#)
        try v1(api, #"{"token":"\#(d.token)","apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"content-available":1}}}}"#)
        let got = try inbox(api, d.id)
        #expect(got.map { $0.at("apnsPriority") } == [.int(10), .int(5), .int(5), .int(1), .int(10)])
        #expect(got[2].string("priority") == "normal" && got[2].string("originalPriority") == "high")
        // Only iOS deliveries carry it.
        let android = try device(api, "android")
        legacy(api, #"{"to":"\#(android.token)","priority":"high","data":{"k":"v"}}"#)
        #expect(try inbox(api, android.id).first?.at("apnsPriority") == nil)
    }

    @Test func aCriticalSoundDictionaryReachesAps() throws {
        let api = api()
        let d = try device(api, "ios")
        // As firebase-admin encodes `CriticalSound(name, critical=True, volume=0.5)`.
        try v1(api, #"{"token":"\#(d.token)","apns":{"payload":{"aps":{"alert":"Fire","sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}}}"#)
        let delivered = try #require(try inbox(api, d.id).first)
        #expect(delivered.at("payload.aps.sound.critical") == .int(1))
        #expect(delivered.string("payload.aps.sound.name") == "alarm.caf")
        #expect(delivered.at("payload.aps.sound.volume")?.doubleValue == 0.5)
    }
}
