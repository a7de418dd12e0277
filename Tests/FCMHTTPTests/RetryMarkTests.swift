// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// A send that repeats an earlier one (same project, target and body) within `retryWindow` is
/// marked on its `accepted` event (docs/simulation.md, "Retries made visible").
@Suite("Retries made visible")
struct RetryMarkTests {
    private static let path = "/v1/projects/\(DemoProject.id)/messages:send"

    private func accepted(_ api: InProcess) throws -> [JSONValue] {
        try api.json("GET", "/emulator/v1/projects/\(DemoProject.id)/events?kind=accepted")["events"]?.arrayValue ?? []
    }

    private func device(_ api: InProcess) throws -> DeviceInfo {
        try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
    }

    @Test func aBlindRetryNamesTheMessageItRepeats() throws {
        let api = InProcess()
        let d = try device(api)
        let body = #"{"message":{"token":"\#(d.token)","data":{"score":"3-0"}}}"#
        #expect(api.call("POST", Self.path, body).status == 200)
        _ = try api.emulator.advance(byMillis: 1_500)
        #expect(api.call("POST", Self.path, body).status == 200)
        // Another body, or the same to another device, is no retry.
        #expect(api.call("POST", Self.path, #"{"message":{"token":"\#(d.token)","data":{"score":"3-1"}}}"#).status == 200)
        let events = try accepted(api)
        try #require(events.count == 3)
        #expect(events[0]["attempt"] == nil)
        #expect(events[1]["retryOf"] == events[0]["messageId"])
        #expect(events[1]["attempt"] == .int(2))
        #expect(events[1]["retryGapsMillis"] == .array([.int(1_500)]))
        #expect(events[2]["retryOf"] == nil && events[2]["attempt"] == nil)
        // Both copies reached the device: the mark changes nothing of FCM's behaviour.
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.count == 3)
    }

    /// The SDK's own retries after refusals: the accepted attempt counts them and their gaps, and
    /// names no earlier message (none was accepted).
    @Test func retriesAfterRefusalsCountTheirAttemptsAndBackoff() throws {
        let api = InProcess()
        let d = try device(api)
        let rule = #"{"id":"outage","match":{"api":"v1","count":2},"action":{"status":503}}"#
        #expect(api.call("POST", "/emulator/v1/faults", rule).status == 201)
        let body = #"{"message":{"token":"\#(d.token)"}}"#
        #expect(api.call("POST", Self.path, body).status == 503)
        _ = try api.emulator.advance(byMillis: 1_000)
        #expect(api.call("POST", Self.path, body).status == 503)
        _ = try api.emulator.advance(byMillis: 2_000)
        #expect(api.call("POST", Self.path, body).status == 200)
        let event = try #require(try accepted(api).first)
        #expect(event["retryOf"] == nil)
        #expect(event["attempt"] == .int(3))
        #expect(event["retryGapsMillis"] == .array([.int(1_000), .int(2_000)]))
    }

    @Test func outsideTheWindowOrWithTheWindowOffThereIsNoMark() throws {
        var settings = EmulatorSettings()
        settings.retryWindowSeconds = 60
        let api = InProcess(Emulator(settings: settings, clock: .virtual(start: .virtualEpoch)))
        let d = try device(api)
        let body = #"{"message":{"token":"\#(d.token)"}}"#
        #expect(api.call("POST", Self.path, body).status == 200)
        _ = try api.emulator.advance(byMillis: 60_001)
        #expect(api.call("POST", Self.path, body).status == 200)
        #expect(try accepted(api).allSatisfy { $0["attempt"] == nil })

        settings.retryWindowSeconds = 0
        let off = InProcess(Emulator(settings: settings, clock: .virtual(start: .virtualEpoch)))
        let e = try device(off)
        for _ in 0..<2 { #expect(off.call("POST", Self.path, #"{"message":{"token":"\#(e.token)"}}"#).status == 200) }
        #expect(try accepted(off).allSatisfy { $0["attempt"] == nil })
    }

    /// A legacy request to two tokens, sent twice: each token's send repeats its own.
    @Test func aLegacyMulticastMarksEachTokensSend() throws {
        let api = InProcess()
        let a = try device(api)
        let b = try device(api)
        let body = #"{"registration_ids":["\#(a.token)","\#(b.token)"],"data":{"k":"v"}}"#
        let key = [("Authorization", "key=\(DemoProject.serverKey)")]
        for _ in 0..<2 { #expect(api.call("POST", "/fcm/send", body, headers: key).status == 200) }
        let events = try accepted(api)
        try #require(events.count == 4)
        #expect(events[2]["retryOf"] == events[0]["messageId"])
        #expect(events[3]["retryOf"] == events[1]["messageId"])
    }
}
