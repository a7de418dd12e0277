// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// FCM's per-project quotas (`quotas=fcm`) in each API's own words.
@Suite("Quotas in every dialect")
struct QuotaDialectTests {
    private func api(messages: Int = 600_000, subscriptions: Int = 3000) -> InProcess {
        var settings = EmulatorSettings()
        settings.fcmQuotas = true
        settings.quotaMessagesPerMinute = messages
        settings.quotaSubscriptionsPerSecond = subscriptions
        return InProcess(Emulator(settings: settings))
    }

    private func device(_ api: InProcess) throws -> DeviceInfo {
        try api.emulator.createDevice(DeviceSpec(platform: .android, appId: DeviceSpec.defaultAppId(for: .android)), projectId: DemoProject.id)
    }

    @Test func v1AnswersResourceExhaustedWithQuotaDetailsAndTheDelay() throws {
        let api = api(messages: 1)
        let d = try device(api)
        let send = "/v1/projects/demo-fcm-emu/messages:send"
        let body = #"{"message":{"token":"\#(d.token)"}}"#
        #expect(api.call("POST", send, body).status == 200)
        try api.emulator.advance(byMillis: 20_000)
        let refused = api.call("POST", send, body)
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "40")
        let e = try JSONParser.parse(refused.body)
        #expect(e.string("error.status") == "RESOURCE_EXHAUSTED")
        #expect(e.string("error.message")?.hasPrefix("Quota exceeded for quota metric 'Send requests'") == true)
        #expect(e.string("error.details.0.@type") == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
        #expect(e.string("error.details.0.errorCode") == "QUOTA_EXCEEDED")
        #expect(e.string("error.details.1.@type") == "type.googleapis.com/google.rpc.QuotaFailure")
        #expect(e.string("error.details.1.violations.0.subject") == "project_number:\(DemoProject.number)")
        #expect(e.string("error.details.2.reason") == "RATE_LIMIT_EXCEEDED")
        #expect(e.string("error.details.2.metadata.quota_limit_value") == "1")
        try api.emulator.advance(byMillis: 40_000)
        #expect(api.call("POST", send, body).status == 200)
    }

    @Test func legacyAnswersInItsResults() throws {
        let api = api(messages: 1)
        let d = try device(api)
        let key = [("Authorization", "key=\(DemoProject.serverKey)")]
        #expect(api.call("POST", "/fcm/send", #"{"to":"\#(d.token)"}"#, headers: key).status == 200)
        let refused = api.call("POST", "/fcm/send", #"{"to":"\#(d.token)"}"#, headers: key)
        #expect(refused.status == 200)
        #expect(try JSONParser.parse(refused.body).string("results.0.error") == "DeviceMessageRateExceeded")
        let topic = api.call("POST", "/fcm/send", #"{"to":"/topics/news"}"#, headers: key)
        #expect(try JSONParser.parse(topic.body).string("error") == "TopicsMessageRateExceeded")
    }

    @Test func iidAnswers429InItsOwnJSON() throws {
        let api = api(subscriptions: 1)
        let d = try device(api)
        let key = [("Authorization", "key=\(DemoProject.serverKey)"), ("access_token_auth", "true")]
        let body = #"{"to":"/topics/news","registration_tokens":["\#(d.token)"]}"#
        #expect(api.call("POST", "/iid/v1:batchAdd", body, headers: key).status == 200)
        let refused = api.call("POST", "/iid/v1:batchRemove", body, headers: key)
        #expect(refused.status == 429)
        #expect(refused.bodyText == #"{"error":"RESOURCE_EXHAUSTED"}"# + "\n")
        #expect(refused.header("Retry-After") == "1")
        #expect(api.call("POST", "/iid/v1/\(d.token)/rel/topics/sport", headers: key).status == 429)
        try api.emulator.advance(byMillis: 1000)
        #expect(api.call("POST", "/iid/v1:batchRemove", body, headers: key).status == 200)
    }
}
