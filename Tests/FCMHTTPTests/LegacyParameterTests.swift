// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// Legacy parameters by name: a data key named like one of FCM's, and a name FCM does not know
/// (https://firebase.google.com/docs/cloud-messaging/http-server-ref, tables 1 and 9; docs/legacy.md).
@Suite("Legacy parameter names")
struct LegacyParameterTests {
    private func bytes(_ value: PayloadValue?) -> String? { LegacyClient.bytes(value) }

    /// Table 9, "Invalid Data Key": "some words (such as collapse_key) are also used by FCM but are
    /// allowed in the payload, in which case the payload value will be overridden by the FCM
    /// value". Every platform's app reads FCM's collapse key, never the data value.
    @Test func aDataKeyNamedCollapseKeyGivesWayToFCMsOnEveryPlatform() throws {
        let client = LegacyClient()
        let devices = try [Platform.android, .ios, .web].map { try client.device($0, state: .foreground) }
        let tokens = devices.map { "\"\($0.token)\"" }.joined(separator: ",")
        let answer = try JSONParser.parse(
            client.send(#"{"registration_ids":[\#(tokens)],"collapse_key":"scores","data":{"collapse_key":"mine","n":"2"}}"#).body)
        #expect(answer["success"] == .int(3), "\(answer)")
        let payloads = try devices.map { try #require(try client.lastPayload($0)) }
        let (android, ios, web) = (payloads[0], payloads[1], payloads[2])
        #expect(bytes(android["data"]) == #"{"n":"2"}"# && android["collapseKey"] == .string("scores"))
        #expect(ios["collapse_key"] == .string("scores") && ios["n"] == .string("2"))
        #expect(bytes(web["data"]) == #"{"n":"2"}"# && web["collapseKey"] == .string("scores"))
        // Without a collapse key of FCM's, an iOS app finds none: the sender's value is gone.
        _ = client.send(#"{"to":"\#(devices[1].token)","data":{"collapse_key":"mine","n":"3"}}"#)
        let plain = try #require(try client.lastPayload(devices[1]))
        #expect(plain["collapse_key"] == nil && plain["n"] == .string("3"))
    }

    /// Table 1, `content_available` and `mutable_content`: "On Apple platforms, use this field to
    /// represent content-available (mutable-content) in the APNs payload"; mutable_content "will
    /// be ignored for Android and web", and content_available is not supported on Chrome.
    @Test func contentAvailableAndMutableContentReachApsOnly() throws {
        let client = LegacyClient()
        let devices = try [Platform.ios, .android, .web].map { try client.device($0, state: .background) }
        let tokens = devices.map { "\"\($0.token)\"" }.joined(separator: ",")
        let body = #"{"registration_ids":[\#(tokens)],"content_available":true,"mutable_content":true,"notification":{"title":"T"}}"#
        #expect(try JSONParser.parse(client.send(body).body)["success"] == .int(3))
        let payloads = try devices.map { try #require(try client.lastPayload($0)) }
        #expect(bytes(payloads[0]["aps"]) == #"{"alert":{"title":"T"},"content-available":1,"mutable-content":1}"#)
        #expect(bytes(payloads[1]["notification"]) == #"{"title":"T"}"# && bytes(payloads[2]["notification"]) == #"{"title":"T"}"#)
        #expect(payloads[1]["aps"] == nil && payloads[2]["aps"] == nil)
    }

    /// A name the legacy service does not know is ignored, and the request accepted as if it were
    /// absent (docs/legacy.md, "Unknown parameters"): the answer is the same bytes, the message
    /// keeps FCM's default lifetime, and the `accepted` event names the key and the nearest known one.
    @Test func aMisspeltParameterIsAcceptedAndNamedInTheAcceptedEvent() throws {
        let client = LegacyClient()
        let d = try client.device(.android, state: .foreground)
        let answer = try JSONParser.parse(client.send(#"{"to":"\#(d.token)","time_to_lve":60,"data":{"k":"v"}}"#).body)
        #expect(answer.objectValue?.map(\.0) == ["multicast_id", "success", "failure", "canonical_ids", "results"])
        #expect(answer["success"] == .int(1) && answer["failure"] == .int(0))
        let delivery = try #require(try client.inbox(d).last)
        #expect(delivery.ttlSeconds == EmulatorSettings.maxTTLSeconds)
        _ = client.send(#"{"to":"\#(d.token)","content-available":true,"ttl":5,"notification":{"tittle":"T"}}"#)
        _ = client.send(#"{"to":"\#(d.token)","time_to_live":60}"#)
        let details = try client.api.emulator.events(EventQuery(kinds: [.accepted])).map(\.detail)
        #expect(
            details == [
                #"legacy: ignored unknown parameter "time_to_lve" (did you mean "time_to_live"?)"#,
                #"legacy: ignored unknown parameter "content-available" (did you mean "content_available"?), "#
                    + #"ignored unknown parameter "ttl", ignored unknown parameter "notification.tittle" (did you mean "notification.title"?)"#,
                "legacy",
            ])
    }
}
