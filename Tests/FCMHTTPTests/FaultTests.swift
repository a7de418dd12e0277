// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

@Suite("Fault rules through the HTTP fronts and the control API")
struct FaultTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    private func addRule(_ api: InProcess, _ json: String) throws {
        _ = try api.json("POST", "/emulator/v1/faults", json, status: 201)
    }

    @Test func statusWithRetryAfterInV1sDialect() throws {
        let api = InProcess()
        try addRule(
            api, #"{"id":"outage","match":{"api":"v1","route":"messages:send","count":1},"action":{"status":503,"retryAfter":"10s"}}"#)
        let refused = api.call("POST", send, #"{"message":{"topic":"x"}}"#)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "10")
        let body = try JSONParser.parse(refused.body)
        #expect(body.string("error.status") == "UNAVAILABLE")
        #expect(body.string("error.details.0.errorCode") == "UNAVAILABLE")
        #expect(api.call("POST", send, #"{"message":{"topic":"x"}}"#).status == 200)
    }

    /// A 429 carries Retry-After only when the rule sets one: Python's urllib3 would otherwise sleep
    /// the header's full value before each retry (urllib3 `Retry`, `respect_retry_after_header`, which
    /// firebase-admin-python's `_http_client.py` leaves on).
    @Test func quotaRuleWithoutRetryAfterSendsNoHeader() throws {
        let api = InProcess()
        try addRule(api, #"{"match":{"api":"v1","count":1},"action":{"error":"QUOTA_EXCEEDED"}}"#)
        try addRule(api, #"{"match":{"api":"v1","count":1},"action":{"error":"QUOTA_EXCEEDED","retryAfter":"5s"}}"#)
        let bare = api.call("POST", send, #"{"message":{"topic":"x"}}"#)
        #expect(bare.status == 429)
        #expect(bare.header("Retry-After") == nil)
        #expect(try JSONParser.parse(bare.body).string("error.details.0.errorCode") == "QUOTA_EXCEEDED")
        let timed = api.call("POST", send, #"{"message":{"topic":"x"}}"#)
        #expect(timed.status == 429)
        #expect(timed.header("Retry-After") == "5")
    }

    @Test func errorRulesSpeakEachAPIsDialect() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .ios, appId: "a"), projectId: DemoProject.id)
        try addRule(api, #"{"id":"apns","match":{"target":"\#(d.token)"},"action":{"error":"THIRD_PARTY_AUTH_ERROR"}}"#)
        let v1 = try JSONParser.parse(api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#).body)
        #expect(v1.string("error.details.0.errorCode") == "THIRD_PARTY_AUTH_ERROR")
        let legacy = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/fcm/send",
                headers: [("Authorization", "key=\(DemoProject.serverKey)"), ("Content-Type", "application/json")],
                body: #"{"to":"\#(d.token)"}"#
            ))
        #expect(try JSONParser.parse(legacy.body).string("results.0.error") == "InvalidApnsCredential")
    }

    @Test func legacyUnavailableIs5xxWithRetryAfter() throws {
        let api = InProcess()
        try addRule(api, #"{"match":{"api":"legacy"},"action":{"status":503,"retryAfter":30}}"#)
        let response = api.responder.respond(
            HTTPRequest(method: "POST", target: "/fcm/send", headers: [("Authorization", "key=\(DemoProject.serverKey)")], body: "{}"))
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "30")
        #expect(response.header("Content-Type") == "text/html; charset=UTF-8")
    }

    @Test func html502AndLatencyAndTheControlAPIIsNeverFaulted() throws {
        let api = InProcess()
        try addRule(api, #"{"id":"gfe","match":{"nth":1},"action":{"html502":true}}"#)
        let page = api.call("POST", send, #"{"message":{"topic":"x"}}"#)
        #expect(page.status == 502)
        #expect(page.bodyText.contains("<title>Error 502 (Server Error)!!1</title>"))
        #expect(try api.json("GET", "/emulator/v1/health").string("status") == "ok")
        let listed = try api.json("GET", "/emulator/v1/faults")
        #expect(listed.string("faults.0.action.html502") == nil)
        #expect(listed.at("faults.0.action.html502") == .bool(true))
        _ = try api.json("DELETE", "/emulator/v1/faults/gfe")
        _ = try api.json("DELETE", "/emulator/v1/faults/gfe", status: 404)
        _ = try api.json("PUT", "/emulator/v1/faults", #"{"faults":[{"id":"slow","action":{"latency":"2s"}}]}"#)
        // The delay is emulator time; the transport scales it by the clock's speed (0 for a virtual clock).
        let delayed = api.call("POST", send, #"{"message":{"topic":"x"}}"#)
        guard case .delay(let millis) = delayed.outcome else {
            Issue.record("not delayed: \(delayed.outcome)")
            return
        }
        #expect(millis == 2000)
        #expect(api.responder.clockSpeed() == 0)
    }

    @Test(arguments: [
        #"{"action":{}}"#, #"{"action":{"error":"NOPE"}}"#, #"{"action":{"status":200}}"#,
        #"{"match":{"api":"smtp"},"action":{"reset":true}}"#,
        #"{"match":{"nth":0},"action":{"reset":true}}"#, #"{"match":{"probability":2},"action":{"reset":true}}"#,
        #"{"match":{"colour":"red"},"action":{"reset":true}}"#,
    ])
    func badRulesAreRefused(body: String) throws {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/faults", body, status: 400)
        #expect(api.emulator.faultRules().isEmpty)
    }
}
