// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// `deliverThenFail` and the APNs detail of iOS failures, in process.
@Suite("Delivered then failed; APNs error details")
struct DeliveredThenFailedTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    /// The message reaches the device and still the sender hears 503: a blind retry makes a second copy.
    @Test func deliveredThenUnavailableLeavesTwoCopiesAfterARetry() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: DemoProject.id)
        _ = try api.json(
            "POST", "/emulator/v1/faults", #"{"id":"dtf","match":{"api":"v1","count":1},"action":{"deliverThenFail":true,"retryAfter":3}}"#,
            status: 201)
        let body = #"{"message":{"token":"\#(d.token)","data":{"n":"1"}}}"#
        let failed = api.call("POST", send, body)
        #expect(failed.status == 503)
        #expect(failed.header("Retry-After") == "3")
        #expect(try JSONParser.parse(failed.body).string("error.details.0.errorCode") == "UNAVAILABLE")
        #expect(try api.emulator.inbox(d.token, projectId: DemoProject.id).1.count == 1)
        #expect(api.call("POST", send, body).status == 200)
        #expect(try api.emulator.inbox(d.token, projectId: DemoProject.id).1.count == 2)
    }

    @Test func deliveredThenResetDropsTheConnectionAfterDelivering() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: DemoProject.id)
        _ = try api.json("POST", "/emulator/v1/faults", #"{"action":{"deliverThenFail":true,"reset":true}}"#, status: 201)
        let answer = api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#)
        #expect(answer.outcome.dropsConnection)
        #expect(try api.emulator.inbox(d.token, projectId: DemoProject.id).1.count == 1)
    }

    /// A refused send delivered nothing, so its own answer stands.
    @Test func aRefusedSendKeepsItsOwnAnswer() throws {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/faults", #"{"action":{"deliverThenFail":true}}"#, status: 201)
        #expect(api.call("POST", send, #"{"message":{"token":"nope"}}"#).status == 400)
    }

    @Test func codecReadsAndWritesDeliverThenFail() throws {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/faults", #"{"id":"a","action":{"deliverThenFail":true,"status":500}}"#, status: 201)
        _ = try api.json("POST", "/emulator/v1/faults", #"{"id":"b","action":{"deliverThenFail":true,"reset":true}}"#, status: 201)
        let rules = api.emulator.faultRules()
        #expect(rules.map(\.action) == [
            .deliverThenFail(status: 500, retryAfterSeconds: nil), .deliverThenFail(status: nil, retryAfterSeconds: nil),
        ])
        // Snapshots write rules with the codec: they read back the same.
        for rule in rules {
            #expect(try FaultRuleCodec.decode(FaultRuleCodec.encode(rule), defaultId: "x").action == rule.action)
        }
    }

    @Test func codecRefusesRulesThatCannotApply() throws {
        let api = InProcess()
        for (rule, field) in [
            (#"{"match":{"api":"xmpp"},"action":{"deliverThenFail":true}}"#, "match.api"),
            (#"{"action":{"deliverThenFail":true,"status":200}}"#, "action.status"),
        ] {
            let refusal = api.call("POST", "/emulator/v1/faults", rule)
            #expect(refusal.status == 400, "\(rule)")
            #expect(refusal.bodyText.contains(field), "\(rule): \(refusal.bodyText)")
        }
    }

    /// FCM relays APNs' answer beside FcmError (https://firebase.google.com/docs/reference/fcm/rest/v1/ApnsError).
    @Test func anUninstalledIOSAppsTokenCarriesAPNsUnregistered() throws {
        let api = InProcess()
        for platform in [Platform.ios, .android] {
            let d = try api.emulator.createDevice(DeviceSpec(platform: platform, appId: "a"), projectId: DemoProject.id)
            _ = try api.emulator.uninstall(d.token, projectId: DemoProject.id)
            #expect(api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#).status == 200)  // found gone on delivery
            let refused = api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#)
            #expect(refused.status == 404)
            let body = try JSONParser.parse(refused.body)
            #expect(body.string("error.details.0.errorCode") == "UNREGISTERED")
            if platform == .ios {
                #expect(body.string("error.details.1.@type") == "type.googleapis.com/google.firebase.fcm.v1.ApnsError")
                #expect(body.at("error.details.1.statusCode")?.int64Value == 410)
                #expect(body.string("error.details.1.reason") == "Unregistered")
            } else {
                #expect(body.at("error.details")?.arrayValue?.count == 1)
            }
        }
    }

    @Test func anAPNsAuthFaultCarriesInvalidProviderToken() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .ios, appId: "a"), projectId: DemoProject.id)
        _ = try api.json("POST", "/emulator/v1/faults", #"{"action":{"error":"THIRD_PARTY_AUTH_ERROR"}}"#, status: 201)
        let body = try JSONParser.parse(api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#).body)
        #expect(body.string("error.details.0.errorCode") == "THIRD_PARTY_AUTH_ERROR")
        #expect(body.at("error.details.1.statusCode")?.int64Value == 403)
        #expect(body.string("error.details.1.reason") == "InvalidProviderToken")
    }
}
