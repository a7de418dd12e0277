// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import Testing

/// `GET …/devices/{device}/outcomes` (docs/control-api.md, "Outcomes"), and refusals that take
/// their target from the body when the front noted none.
@Suite("Device outcomes over the control API")
struct OutcomesAPITests {
    static let devices = "/emulator/v1/projects/\(DemoProject.id)/devices"

    @Test func aTTLZeroSendToAnOfflineDeviceIsTheStory() throws {
        let api = InProcess()
        let device = try api.json("POST", Self.devices, #"{"platform":"android","state":"offline","name":"pixel"}"#, status: 201)
        let token = try #require(device.string("token"))
        let fresh = try api.json("GET", Self.devices + "/pixel/outcomes")
        #expect(fresh.string("story") == "Nothing was sent to it yet." && fresh.at("outcomes")?.arrayValue?.isEmpty == true)
        let sent = api.call(
            "POST", "/v1/projects/\(DemoProject.id)/messages:send", #"{"message":{"token":"\#(token)","android":{"ttl":"0s"},"data":{"a":"b"}}}"#)
        #expect(sent.status == 200, "\(sent.bodyText)")
        let answer = try api.json("GET", Self.devices + "/\(token)/outcomes")
        #expect(answer.string("device.id") == device.string("id") && answer.string("device.name") == "pixel")
        #expect(answer.string("device.state") == "offline" && answer.string("device.token") == token)
        #expect(answer.at("stored") == .int(0))
        #expect(answer.string("story") == "discarded: TTL 0 while the device was offline")
        let newest = try #require(answer.at("outcomes.0"))
        #expect(newest.string("kind") == "discarded" && newest.string("reason") == "ttl-zero")
        #expect(newest.string("messageId")?.isEmpty == false && newest.string("time")?.hasSuffix("Z") == true)
        #expect(answer.string("outcomes.1.kind") == "accepted")
        #expect(api.call("GET", Self.devices + "/nobody/outcomes").status == 404)
        #expect(api.call("GET", Self.devices + "/pixel/outcomes?limit=3").status == 400)
    }

    /// A strict project's send without credentials is answered 401 before the body is read; the
    /// refusal takes the token from the body, so the device and a `token=` query both find it.
    @Test func anUnauthenticatedSendNamesTheTokenOfItsBody() throws {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"strict-app"}"#, status: 201)
        let device = try api.json("POST", "/emulator/v1/projects/strict-app/devices", #"{"platform":"ios"}"#, status: 201)
        let token = try #require(device.string("token"))
        let refused = api.call(
            "POST", "/v1/projects/strict-app/messages:send", #"{"message":{"token":"\#(token)","data":{"a":"b"}}}"#, headers: [])
        #expect(refused.status == 401)
        let answer = try api.json("GET", "/emulator/v1/projects/strict-app/devices/\(token)/outcomes")
        #expect(answer.string("outcomes.0.kind") == "refused" && answer.at("outcomes.0.status") == .int(401))
        #expect(answer.string("outcomes.0.code") == "UNAUTHENTICATED")
        #expect(answer.string("story")?.hasPrefix("refused: 401 UNAUTHENTICATED ") == true)
        let events = try api.json("GET", "/emulator/v1/events?kind=refused&token=\(token)").at("events")?.arrayValue ?? []
        #expect(events.count == 1 && events.first?.string("target") == token)
        // Legacy: `to`, else the first of `registration_ids`.
        let legacy = api.call("POST", "/fcm/send", #"{"registration_ids":["\#(token)"]}"#, headers: [("Authorization", "key=wrong")])
        #expect(legacy.status == 401)
        #expect(try api.json("GET", "/emulator/v1/projects/strict-app/devices/\(token)/outcomes").at("outcomes.0.status") == .int(401))
        #expect(try api.emulator.events(EventQuery(token: token, kinds: [.refused])).count == 2)
    }
}
