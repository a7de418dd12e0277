// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import Testing

@Suite("HTTP v1 messages:send")
struct V1SendTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    private func device(
        _ api: InProcess, _ platform: Platform = .android, state: DeviceState = .foreground, topics: [String] = []
    ) throws -> DeviceInfo {
        try api.emulator.createDevice(
            DeviceSpec(platform: platform, appId: DeviceSpec.defaultAppId(for: platform), state: state, topics: topics),
            projectId: DemoProject.id)
    }

    private func error(
        _ api: InProcess, _ body: String, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let response = api.call("POST", send, body)
        #expect(response.status == status, "\(response.bodyText)", sourceLocation: sourceLocation)
        return try JSONParser.parse(response.body)
    }

    @Test func successAnswersWithTheMessageNameAndFCMsHeaders() throws {
        let api = InProcess()
        let d = try device(api)
        let response = api.call("POST", send, #"{"message":{"token":"\#(d.token)","data":{"score":"3-0"}}}"#)
        #expect(response.status == 200)
        #expect(response.headers.filter { $0.0 == "Vary" }.map(\.1) == ["Origin", "X-Origin", "Referer"])
        let name = try #require(JSONParser.parse(response.body)["name"]?.stringValue)
        #expect(name.hasPrefix("projects/demo-fcm-emu/messages/0:"))
        #expect(response.bodyText == "{\n  \"name\": \"\(name)\"\n}\n")
        let inbox = try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1
        #expect(inbox.first?.message?.content.data.first?.1 == "3-0")
    }

    @Test func projectNumberWorksAndIsEchoed() throws {
        let api = InProcess()
        let d = try device(api)
        let body = try api.json("POST", "/v1/projects/\(DemoProject.number)/messages:send", #"{"message":{"token":"\#(d.token)"}}"#)
        #expect(body.string("name")?.hasPrefix("projects/\(DemoProject.number)/messages/") == true)
    }

    @Test func acceptsSnakeAndCamelCaseAndLowercaseEnums() throws {
        let api = InProcess()
        let d = try device(api, state: .doze)
        let body = #"""
            {"validateOnly": false, "message": {"token": "\#(d.token)",
              "android": {"priority": "high", "ttl": "3.500000000s", "collapseKey": "score", "restricted_package_name": "com.example.app",
                          "notification": {"title": "t", "clickAction": "OPEN", "event_time": \#
                          "2026-01-01T00:00:00.000000Z", "notification_count": "3"}},
              "fcmOptions": {"analyticsLabel": "label_1"}}}
            """#
        _ = try api.json("POST", send, body)
        let inbox = try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1
        #expect(inbox.count == 1)  // high priority woke the dozing device
        #expect(inbox.first?.ttlSeconds == 3)
        #expect(inbox.first?.collapseKey == "score")
        let payload = try #require(inbox.first?.payload(on: .android))
        #expect(payload["notification"]?["clickAction"] == .string("OPEN"))
        #expect(payload["notification"]?["notificationCount"] == .int(3))
    }

    @Test func validateOnlyAnswersFakeMessageIdAndDeliversNothing() throws {
        let api = InProcess()
        let d = try device(api)
        let body = try api.json("POST", send, #"{"message":{"token":"\#(d.token)"},"validate_only":true}"#)
        #expect(body.string("name") == "projects/demo-fcm-emu/messages/fake_message_id")
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.isEmpty)
    }

    @Test func topicAndConditionTargets() throws {
        let api = InProcess()
        let a = try device(api, topics: ["news", "sport"])
        let topic = try api.json("POST", send, #"{"message":{"topic":"/topics/news","notification":{"title":"x"}}}"#)
        #expect(Int64(topic.string("name")?.split(separator: "/").last ?? "") != nil)
        _ = try api.json("POST", send, #"{"message":{"condition":"'news' in topics && 'sport' in topics","data":{"a":"b"}}}"#)
        #expect(try api.emulator.inbox(String(a.id), projectId: DemoProject.id).1.count == 2)
    }

    /// 200,000 `!` overflowed the stack; 40,000 chained terms built a tree
    /// deep enough to crash and took seconds of an event loop. Both are refused while parsing.
    @Test func hostileConditionsAreRefusedAsInvalidArguments() throws {
        let api = InProcess()
        let bangs = String(repeating: "!", count: 200_000) + "'a' in topics"
        let chain = Array(repeating: "'a' in topics", count: 40_000).joined(separator: " && ")
        for condition in [bangs, chain] {
            let e = try error(api, #"{"message":{"condition":"\#(condition)"}}"#, status: 400)
            #expect(e["error"]?["status"] == .string("INVALID_ARGUMENT"))
        }
    }

    @Test func aCollapseKeyOver1024BytesIsAnInvalidArgument() throws {
        let api = InProcess()
        let key = String(repeating: "k", count: 1025)
        let e = try error(api, #"{"message":{"topic":"news","android":{"collapse_key":"\#(key)"}}}"#, status: 400)
        let fields = (e["error"]?["details"]?.arrayValue ?? []).compactMap { $0["fieldViolations"]?.arrayValue?.first?["field"] }
        #expect(fields == [.string("message.android.collapse_key")])
    }

    @Test func dataValueOfWrongTypeNamesTheFieldAsGoogleDoes() throws {
        let api = InProcess()
        let e = try error(api, #"{"message":{"topic":"x","data":{"a":"ok","x":12}}}"#, status: 400)
        #expect(e.string("error.message") == "Invalid value at 'message.data[1].value' (TYPE_STRING), 12")
        #expect(e.string("error.status") == "INVALID_ARGUMENT")
        #expect(e.string("error.details.0.@type") == "type.googleapis.com/google.rpc.BadRequest")
        #expect(e.string("error.details.0.fieldViolations.0.field") == "message.data[1].value")
    }

    @Test func unknownFieldUsesGooglesWording() throws {
        let api = InProcess()
        let e = try error(api, #"{"message":{"topic":"x","expiration_time":"1"}}"#, status: 400)
        #expect(
            e.string("error.message") == "Invalid JSON payload received. Unknown name \"expiration_time\" at 'message': Cannot find field.")
    }

    @Test func twoTargetsAndNoTarget() throws {
        let api = InProcess()
        let two = try error(api, #"{"message":{"token":"a","topic":"b"}}"#, status: 400)
        #expect(
            two.string("error.message") == "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set 'topic'")
        let none = try error(api, #"{"message":{"data":{"a":"b"}}}"#, status: 400)
        #expect(none.string("error.message") == "Recipient of the message is not set.")
        #expect(none.string("error.details.1.errorCode") == "INVALID_ARGUMENT")
    }

    @Test func registrationErrorsCarryTheFcmErrorCode() throws {
        let api = InProcess()
        let bad = try error(api, #"{"message":{"token":"not-a-token"}}"#, status: 400)
        #expect(bad.string("error.message") == "The registration token is not a valid FCM registration token")
        #expect(bad.string("error.details.0.errorCode") == "INVALID_ARGUMENT")

        let d = try device(api)
        try api.emulator.deleteDevice(String(d.id), projectId: DemoProject.id)
        let gone = try error(api, #"{"message":{"token":"\#(d.token)"}}"#, status: 404)
        #expect(
            gone.encoded()
                == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","#
                + #""details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
        )

        let other = try api.emulator.createProject(id: "other-app")
        let theirs = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "x"), projectId: other.id)
        let mismatch = try error(api, #"{"message":{"token":"\#(theirs.token)"}}"#, status: 403)
        #expect(mismatch.string("error.status") == "PERMISSION_DENIED")
        #expect(mismatch.string("error.details.0.errorCode") == "SENDER_ID_MISMATCH")
    }

    @Test func tooBigPayloadHasNoDetails() throws {
        let api = InProcess()
        let big = String(repeating: "a", count: 5000)
        let e = try error(api, #"{"message":{"topic":"x","data":{"k":"\#(big)"}}}"#, status: 400)
        #expect(e.encoded() == #"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}"#)
    }

    @Test func reservedKeyAndRateLimit() throws {
        let settings = { () -> EmulatorSettings in
            var s = EmulatorSettings()
            s.deviceRateLimit = .init(messages: 1, windowSeconds: 60)
            return s
        }()
        let api = InProcess(Emulator(settings: settings))
        let d = try device(api)
        let reserved = try error(api, #"{"message":{"token":"\#(d.token)","data":{"from":"me"}}}"#, status: 400)
        #expect(reserved.string("error.message") == "Invalid data payload key: from")
        _ = try api.json("POST", send, #"{"message":{"token":"\#(d.token)"}}"#)
        let response = api.call("POST", send, #"{"message":{"token":"\#(d.token)"}}"#)
        #expect(response.status == 429)
        #expect(response.header("Retry-After") == "60")
        let quota = try JSONParser.parse(response.body)
        #expect(quota.string("error.status") == "RESOURCE_EXHAUSTED")
        #expect(quota.string("error.details.0.errorCode") == "QUOTA_EXCEEDED")
    }

    @Test(arguments: [
        #"{"message":{"topic":"bad topic!"}}"#,
        #"{"message":{"condition":"'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics && 'e' in topics && 'f' in topics"}}"#,
        #"{"message":{"topic":"x","android":{"ttl":"3600"}}}"#,
        #"{"message":{"topic":"x","android":{"ttl":"2419201s"}}}"#,
        #"{"message":{"topic":"x","android":{"priority":"urgent"}}}"#,
        #"{"message":{"topic":"x","android":{"notification":{"color":"red"}}}}"#,
        #"{"message":{"topic":"x","webpush":{"fcm_options":{"link":"http://x"}}}}"#,
        #"{"message":{"topic":"x","notification":"hello"}}"#,
        #"{"message":{"topic":"x"},"validate_only":"yes"}"#,
        #"{"message":"#,
        #"[]"#,
    ])
    func invalidRequestsAre400AndChangeNothing(body: String) throws {
        let api = InProcess()
        let d = try device(api, topics: ["x"])
        let e = try error(api, body, status: 400)
        #expect(e.string("error.status") == "INVALID_ARGUMENT")
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.isEmpty)
        #expect(try api.emulator.events(EventQuery(kinds: [.accepted])).isEmpty)
    }

    /// "For all URL values, HTTPS is required" (web notification keys): each URL of
    /// `webpush.notification` is refused by name unless it is HTTPS or relative to the page's origin.
    @Test(arguments: WebNotificationURL.v1Keys)
    func webNotificationURLsMustBeHTTPS(key: String) throws {
        let api = InProcess()
        let d = try device(api, .web)
        for url in ["http://example.com/a.png", "data:image/png;base64,AAAA", "javascript:alert(1)"] {
            let e = try error(api, #"{"message":{"token":"\#(d.token)","webpush":{"notification":{"\#(key)":"\#(url)"}}}}"#, status: 400)
            #expect(e.string("error.status") == "INVALID_ARGUMENT")
            let fields = (e["error"]?["details"]?.arrayValue ?? []).compactMap { $0["fieldViolations"]?.arrayValue?.first?["field"] }
            #expect(fields == [.string("message.webpush.notification.\(key)")])
        }
        for url in ["https://example.com/a.png", "HTTPS://example.com/a.png", "/icons/a.png"] {
            let response = api.call("POST", send, #"{"message":{"token":"\#(d.token)","webpush":{"notification":{"\#(key)":"\#(url)"}}}}"#)
            #expect(response.status == 200, "\(url): \(response.bodyText)")
        }
    }

    @Test func unknownProjectIs404InLaxMode() throws {
        let api = InProcess(fronts: FrontConfiguration(authMode: .lax))
        let wrong = api.call("POST", "/v1/projects/nope/messages:send", #"{"message":{"topic":"x"}}"#)
        #expect(wrong.status == 404)
        #expect(try JSONParser.parse(wrong.body).string("error.status") == "NOT_FOUND")
    }
}
