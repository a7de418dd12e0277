// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

@Suite("Topic management: IID and v1 topicSubscriptions")
struct TopicManagementTests {
    private let unknown = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "x", count: 134)

    private func device(_ api: InProcess) throws -> DeviceInfo {
        try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: DemoProject.id)
    }

    private func subscriptions(_ token: String) -> String {
        "/v1/projects/demo-fcm-emu/registrations/\(token)/topicSubscriptions"
    }

    /// Node, Go and Java accept `/topics/private/<name>` in subscribe and unsubscribe and send it
    /// as is (`^(/topics/)?(private/)?[a-zA-Z0-9-_.~%]+$`).
    @Test func iidAcceptsThePrivatePrefix() throws {
        let api = InProcess()
        let d = try device(api)
        let key = [("Authorization", "key=\(DemoProject.serverKey)"), ("access_token_auth", "true")]
        let iid = { (path: String, body: String) in api.call("POST", path, body, headers: key) }
        let added = iid("/iid/v1:batchAdd", #"{"to":"/topics/private/news","registration_tokens":["\#(d.token)"]}"#)
        #expect(added.status == 200)
        #expect(added.bodyText == #"{"results":[{}]}"# + "\n")
        #expect(try api.emulator.device(d.token, projectId: DemoProject.id).topics == ["news"])
        let removed = iid("/iid/v1:batchRemove", #"{"to":"/topics/private/news","registration_tokens":["\#(d.token)"]}"#)
        #expect(removed.bodyText == #"{"results":[{}]}"# + "\n")
        #expect(try api.emulator.device(d.token, projectId: DemoProject.id).topics.isEmpty)
        #expect(iid("/iid/v1/\(d.token)/rel/topics/private%2Fsport", "").status == 200)
        #expect(try api.emulator.device(d.token, projectId: DemoProject.id).topics == ["sport"])
        let bad = iid("/iid/v1:batchAdd", #"{"to":"/topics/private/","registration_tokens":["\#(d.token)"]}"#)
        #expect(bad.bodyText == #"{"error":"Topic name format is invalid"}"# + "\n")
    }

    @Test func v1SubscriptionsAcceptThePrivatePrefix() throws {
        let api = InProcess()
        let d = try device(api)
        let added = try api.json("POST", subscriptions(d.token) + "?topic_name=%2Ftopics%2Fprivate%2Fnews", "{}")
        #expect(added.string("name") == "projects/demo-fcm-emu/registrations/\(d.token)/topicSubscriptions/news")
        #expect(try api.emulator.device(d.token, projectId: DemoProject.id).topics == ["news"])
        _ = try api.json("DELETE", subscriptions(d.token) + "/private%2Fnews")
        #expect(try api.emulator.device(d.token, projectId: DemoProject.id).topics.isEmpty)
    }

    /// Plain statuses without an `FcmError` detail: read as Node reads topic management (FcmError
    /// first), `UNREGISTERED` would be `unknown-error`; `NOT_FOUND` is `registration-token-not-registered`.
    @Test func v1SubscriptionErrorsArePlainStatuses() throws {
        let api = InProcess()
        let d = try device(api)
        let gone = try api.json("POST", subscriptions(unknown) + "?topic_name=news", "{}", status: 404)
        #expect(gone.encoded() == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}"#)
        let junk = try api.json("POST", subscriptions("junk") + "?topic_name=news", "{}", status: 400)
        let invalid = #"{"error":{"code":400,"message":"The registration token is not a valid FCM registration token","#
        #expect(junk.encoded() == invalid + #""status":"INVALID_ARGUMENT"}}"#)
        let badTopic = try api.json("POST", subscriptions(d.token) + "?topic_name=bad%20topic", "{}", status: 400)
        #expect(badTopic.string("error.status") == "INVALID_ARGUMENT")
        #expect(badTopic.at("error.details")?.arrayValue?.contains { $0.string("@type")?.hasSuffix("FcmError") == true } == false)
        let missing = try api.json("DELETE", subscriptions(d.token) + "/news", status: 404)
        #expect(missing.encoded() == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}"#)
    }
}
