// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Testing

@Suite("Legacy HTTP /fcm/send")
struct LegacySendTests {
    let key = [("Authorization", "key=\(DemoProject.serverKey)")]

    private func send(_ api: InProcess, _ body: String, headers: [(String, String)]? = nil, form: Bool = false) -> HTTPResponse {
        let type = form ? "application/x-www-form-urlencoded;charset=UTF-8" : "application/json"
        return api.responder.respond(
            HTTPRequest(method: "POST", target: "/fcm/send", headers: [("Content-Type", type)] + (headers ?? key), body: body))
    }

    private func device(
        _ api: InProcess, _ platform: Platform = .android, state: DeviceState = .foreground, topics: [String] = []
    ) throws -> DeviceInfo {
        try api.emulator.createDevice(
            DeviceSpec(platform: platform, appId: DeviceSpec.defaultAppId(for: platform), state: state, topics: topics),
            projectId: DemoProject.id)
    }

    private func inbox(_ api: InProcess, _ d: DeviceInfo) throws -> [Delivery] {
        try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1
    }

    /// A legacy notification is measured once, as sent, though the neutral form
    /// repeats it for Android, iOS and the web. 3,000 bytes of body pass the 4096-byte limit;
    /// counted once per platform it would not.
    @Test func aNotificationIsMeasuredOnceAgainstTheLimit() throws {
        let api = InProcess()
        let d = try device(api, .ios)
        let text = String(repeating: "b", count: 3000)
        let body = try JSONParser.parse(send(api, #"{"to":"\#(d.token)","notification":{"title":"T","body":"\#(text)"}}"#).body)
        #expect(body["success"] == .int(1), "\(body)")
        #expect(try inbox(api, d).count == 1)
        let over = String(repeating: "b", count: 4090)
        let refused = try JSONParser.parse(send(api, #"{"to":"\#(d.token)","notification":{"title":"T","body":"\#(over)"}}"#).body)
        #expect(refused.string("results.0.error") == "MessageTooBig")
    }

    @Test func singleTokenGetsTheMulticastShape() throws {
        let api = InProcess()
        let d = try device(api)
        let response = send(api, #"{"to":"\#(d.token)","data":{"score":"5x1"},"priority":"high","time_to_live":60,"collapse_key":"score"}"#)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json; charset=UTF-8")
        let body = try JSONParser.parse(response.body)
        #expect(body.objectValue?.map(\.0) == ["multicast_id", "success", "failure", "canonical_ids", "results"])
        #expect(body["multicast_id"]?.int64Value.map { $0 > 999_999_999_999_999_999 } == true)
        #expect(body["success"] == .int(1))
        #expect(body.string("results.0.message_id")?.hasPrefix("0:") == true)
        let delivery = try #require(try inbox(api, d).first)
        #expect(delivery.priority == .high && delivery.ttlSeconds == 60 && delivery.collapseKey == "score")
        #expect(delivery.message?.api == .legacy)
    }

    @Test func multicastResultsArePositionalWithCanonicalIds() throws {
        let settings = { () -> EmulatorSettings in
            var s = EmulatorSettings()
            s.tokenRefreshGraceSeconds = 3600
            return s
        }()
        let api = InProcess(Emulator(settings: settings))
        let ok = try device(api)
        let refreshed = try device(api)
        let newToken = try api.emulator.refreshToken(String(refreshed.id), projectId: DemoProject.id).token
        let other = try api.emulator.createProject(id: "other-app")
        let theirs = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "x"), projectId: other.id)
        let unknown = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "x", count: 134)
        let ids = [ok.token, refreshed.token, theirs.token, unknown, "garbage", ""].map { "\"\($0)\"" }.joined(separator: ",")
        let body = try JSONParser.parse(send(api, #"{"registration_ids":[\#(ids)],"data":{"a":"b"}}"#).body)
        #expect(body["success"] == .int(2))
        #expect(body["failure"] == .int(4))
        #expect(body["canonical_ids"] == .int(1))
        #expect(body.string("results.1.registration_id") == newToken)
        #expect(
            ["results.2.error", "results.3.error", "results.4.error", "results.5.error"].map { body.string($0) }
                == ["MismatchSenderId", "NotRegistered", "InvalidRegistration", "MissingRegistration"])
        #expect(try inbox(api, refreshed).count == 1)
    }

    @Test func topicConditionAndGroupShapes() throws {
        let api = InProcess()
        let a = try device(api, topics: ["news", "sport"])
        let topic = try JSONParser.parse(send(api, #"{"to":"/topics/news","notification":{"title":"t","body":"b"}}"#).body)
        #expect(topic["message_id"]?.int64Value != nil)
        let condition = try JSONParser.parse(send(api, #"{"condition":"'news' in topics && 'sport' in topics","data":{"x":"y"}}"#).body)
        #expect(condition["message_id"]?.int64Value != nil)
        #expect(try inbox(api, a).count == 2)
        let b = try device(api)
        let group = try api.emulator.createGroup(name: "g", tokens: [a.token, b.token], projectIdOrNumber: DemoProject.id)
        try api.emulator.deleteDevice(String(b.id), projectId: DemoProject.id)
        let groupSend = send(api, #"{"to":"\#(group.notificationKey)","data":{"k":"v"}}"#)
        #expect(groupSend.bodyText == #"{"success":1,"failure":1,"failed_registration_ids":["\#(b.token)"]}"#)
    }

    @Test func notificationPayloadReachesEachPlatform() throws {
        let api = InProcess()
        let ios = try device(api, .ios, state: .background)
        let android = try device(api, state: .background)
        let body =
            #"{"registration_ids":["\#(ios.token)","\#(android.token)"],"notification":{"title":"T","body":"B","#
            + #""badge":"3","sound":"default","click_action":"OPEN","android_channel_id":"news"},"content_available":true}"#
        #expect(try JSONParser.parse(send(api, body).body)["success"] == .int(2))
        let aps = try #require(try inbox(api, ios).first?.payload(on: .ios)["aps"])
        #expect(aps["alert"]?["title"] == .string("T"))
        #expect(aps["badge"] == .int(3))
        #expect(aps["category"] == .string("OPEN"))
        #expect(aps["content-available"] == .int(1))
        let remote = try #require(try inbox(api, android).first)
        #expect(remote.handling == .tray)
        #expect(remote.payload(on: .android)["notification"]?["channelId"] == .string("news"))
    }

    @Test func dryRunAnswersWithoutDelivering() throws {
        let api = InProcess()
        let d = try device(api)
        let body = try JSONParser.parse(send(api, #"{"to":"\#(d.token)","dry_run":true}"#).body)
        #expect(body.string("results.0.message_id") == "fake_message_id")
        #expect(try inbox(api, d).isEmpty)
    }

    @Test(arguments: [
        ("nope", "JSON_PARSING_ERROR: Unexpected character (n) at position 0.\n"),
        (
            #"{"registration_ids":[\#((0...1000).map { "\"t\($0)\"" }.joined(separator: ","))]}"#,
            "Number of messages on bulk (1001) exceeds maximum allowed (1000)\n"
        ),
        (#"{"to":"a","registration_ids":["b"]}"#, "Must use either \"registration_ids\" field or \"to\", not both\n"),
        (#"{"data":{"a":"b"}}"#, "Missing \"registration_ids\" field\n"),
        (#"{"to":"a","data":{"from":"x"}}"#, "\"data\" key \"from\" is a reserved keyword\n"),
        (#"{"to":"a","time_to_live":2419201}"#, "Invalid value (2419201) for \"time_to_live\": must be between 0 and 2419200\n"),
        (#"{"to":123}"#, "Field \"to\" must be a JSON string: 123\n"),
        (
            #"{"condition":"'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics"}"#,
            "Invalid \"condition\" field: 'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics\n"
        ),
    ])
    func badRequestsArePlainText400(body: String, expected: String) throws {
        let api = InProcess()
        let response = send(api, body)
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "text/plain; charset=UTF-8")
        #expect(response.bodyText == expected)
        #expect(try api.emulator.events(EventQuery(kinds: [.accepted])).isEmpty)
    }

    /// "Invalid Parameters" (400, table 9) for a notification key of the wrong type; a `sound` is
    /// a string or an iOS critical alert's dictionary. Web URLs are checked per recipient
    /// (LegacyNotificationKeysTests).
    @Test(arguments: [
        (#"{"to":"a","notification":{"title":7}}"#, "InvalidParameters: \"notification.title\" must be a JSON string: 7\n"),
        (#"{"to":"a","notification":{"body":{"x":1}}}"#, "InvalidParameters: \"notification.body\" must be a JSON string: {\"x\":1}\n"),
        (#"{"to":"a","notification":{"sound":true}}"#, "InvalidParameters: \"notification.sound\" must be a JSON string or object: true\n"),
    ])
    func invalidParametersAre400(body: String, expected: String) throws {
        let api = InProcess()
        let response = send(api, body)
        #expect(response.status == 400)
        #expect(response.bodyText == expected)
        #expect(try api.emulator.events(EventQuery(kinds: [.accepted])).isEmpty)
    }

    /// Android's `icon` (a drawable) and `click_action` (an intent action) have no scheme and pass;
    /// so do HTTPS and origin-relative web URLs.
    @Test func notificationNamesAndHTTPSURLsAreAccepted() throws {
        let api = InProcess()
        let d = try device(api)
        for notification in [
            #"{"icon":"ic_stat_news","click_action":"FLUTTER_NOTIFICATION_CLICK","badge":3}"#,
            #"{"icon":"https://e.com/i.png","click_action":"/inbox"}"#,
        ] {
            let body = try JSONParser.parse(send(api, #"{"to":"\#(d.token)","notification":\#(notification)}"#).body)
            #expect(body["success"] == .int(1), "\(body)")
        }
    }

    @Test func plainTextVariant() throws {
        let api = InProcess()
        let d = try device(api)
        let ok = send(
            api, "registration_id=\(d.token)&collapse_key=k&time_to_live=108&delay_while_idle=1&data.score=4x8&data.time=15%3A16",
            form: true)
        #expect(ok.header("Content-Type") == "text/plain; charset=UTF-8")
        #expect(ok.bodyText.hasPrefix("id=0:") && ok.bodyText.hasSuffix("\n"))
        #expect(try inbox(api, d).first?.message?.content.data.map(\.1) == ["4x8", "15:16"])
        #expect(send(api, "collapse_key=k", form: true).bodyText == "Error=MissingRegistration\n")
        #expect(send(api, "registration_id=garbage", form: true).bodyText == "Error=InvalidRegistration\n")
        #expect(send(api, "registration_id=\(d.token)&data.from=x", form: true).bodyText == "Error=InvalidDataKey\n")
        #expect(send(api, "registration_id=\(d.token)&dry_run=1", form: true).bodyText == "id=fake_message_id\n")
    }

    @Test func authenticationPages() throws {
        let api = InProcess()
        let missing = send(api, #"{"to":"a"}"#, headers: [])
        #expect(missing.status == 401)
        #expect(missing.header("Content-Type") == "text/html; charset=UTF-8")
        #expect(missing.bodyText.contains("<TITLE>The request was missing an Authentication Key (FCM Token)."))
        let wrong = send(api, #"{"to":"a"}"#, headers: [("Authorization", "key=AIzaWrong")])
        #expect(wrong.status == 401)
        #expect(wrong.bodyText.contains("Invalid (legacy) Server-key delivered or Sender is not authorized to perform request."))
        let lax = InProcess(fronts: FrontConfiguration(authMode: .lax))
        let d = try device(lax)
        #expect(
            try JSONParser.parse(send(lax, #"{"to":"\#(d.token)"}"#, headers: [("Authorization", "key=anything")]).body)["success"]
                == .int(1))
        let get = api.responder.respond(HTTPRequest(method: "GET", target: "/fcm/send", headers: key))
        #expect(get.status == 405)
        #expect(get.bodyText.contains("HTTP method GET is not supported by this URL"))
    }

    /// Demo projects take any bearer on every API, legacy included
    /// (`access_token_auth: true`); a strict project's token still needs a grant.
    @Test func anyBearerReachesDemoProjectsOnly() throws {
        let api = InProcess()
        let demo = try device(api)
        _ = try api.emulator.createProject(id: "strict-app", number: "5555")
        let strict = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: "strict-app")
        let bearer = [("Authorization", "Bearer ya29.cached-by-the-sdk"), ("access_token_auth", "true")]
        #expect(try JSONParser.parse(send(api, #"{"to":"\#(demo.token)"}"#, headers: bearer).body)["success"] == .int(1))
        #expect(try JSONParser.parse(send(api, #"{"to":"/topics/news"}"#, headers: bearer).body)["message_id"] != nil)
        #expect(send(api, #"{"to":"\#(strict.token)"}"#, headers: bearer).status == 401)
        #expect(send(api, #"{"registration_ids":["\#(demo.token)","\#(strict.token)"]}"#, headers: bearer).status == 401)
        #expect(send(api, "registration_id=\(demo.token)", headers: bearer, form: true).bodyText.hasPrefix("id="))
    }
}

@Suite("Legacy device groups /fcm/notification")
struct DeviceGroupTests {
    private func call(_ api: InProcess, _ method: String, _ target: String = "/fcm/notification", body: String = "") -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: method, target: target,
                headers: [
                    ("Content-Type", "application/json"), ("Authorization", "key=\(DemoProject.serverKey)"),
                    ("project_id", DemoProject.number),
                ],
                body: body
            ))
    }

    @Test func createAddRemoveLookupAndDeleteWithTheLastMember() throws {
        let api = InProcess()
        let devices = try (0..<3).map { _ in
            try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: DemoProject.id)
        }
        let created = try JSONParser.parse(
            call(
                api, "POST",
                body:
                    #"{"operation":"create","notification_key_name":"appUser-Chris","#
                    + #""registration_ids":["\#(devices[0].token)","\#(devices[1].token)"]}"#
            ).body)
        let key = try #require(created["notification_key"]?.stringValue)
        #expect(key.hasPrefix("APA91b"))
        #expect(
            call(
                api, "POST",
                body: #"{"operation":"create","notification_key_name":"appUser-Chris","registration_ids":["\#(devices[2].token)"]}"#
            ).bodyText
                == #"{"error":"notification_key already exists"}"#)
        #expect(
            call(
                api, "POST",
                body:
                    #"{"operation":"add","notification_key_name":"appUser-Chris","notification_key":"\#(key)","#
                    + #""registration_ids":["\#(devices[2].token)"]}"#
            ).status == 200)
        #expect(
            call(
                api, "POST",
                body:
                    #"{"operation":"add","notification_key_name":"someone-else","notification_key":"\#(key)","#
                    + #""registration_ids":["\#(devices[2].token)"]}"#
            ).bodyText
                == #"{"error":"notification_key_name doesn't match the group name of the notification_key"}"#)
        #expect(call(api, "GET", "/fcm/notification?notification_key_name=appUser-Chris").bodyText == #"{"notification_key":"\#(key)"}"#)
        let all = devices.map { "\"\($0.token)\"" }.joined(separator: ",")
        #expect(
            call(
                api, "POST",
                body:
                    #"{"operation":"remove","notification_key_name":"appUser-Chris","notification_key":"\#(key)","#
                    + #""registration_ids":[\#(all)]}"#
            ).status == 200)
        #expect(
            call(api, "GET", "/fcm/notification?notification_key_name=appUser-Chris").bodyText == #"{"error":"notification_key not found"}"#
        )
        #expect(
            call(api, "POST", body: #"{"operation":"create","notification_key_name":"x","registration_ids":["garbage"]}"#).bodyText
                == #"{"error":"no valid registration ids"}"#)
    }

    @Test func twentyMembersAtMost() throws {
        let api = InProcess()
        let tokens = try (0..<21).map { _ in
            try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: DemoProject.id).token
        }
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        let response = call(api, "POST", body: #"{"operation":"create","notification_key_name":"big","registration_ids":[\#(list)]}"#)
        #expect(response.status == 400)
        #expect(response.bodyText == #"{"error":"maximum number of members exceeded"}"#)
    }

    /// Device groups per project were unbounded.
    @Test func aProjectHoldsABoundedNumberOfGroups() throws {
        var settings = EmulatorSettings()
        settings.maxGroupsPerProject = 2
        let api = InProcess(Emulator(settings: settings))
        let token = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "a"), projectId: DemoProject.id).token
        for name in ["g1", "g2", "g3"] {
            let response = call(
                api, "POST", body: #"{"operation":"create","notification_key_name":"\#(name)","registration_ids":["\#(token)"]}"#)
            #expect(response.status == (name == "g3" ? 400 : 200))
            if name == "g3" { #expect(response.bodyText == #"{"error":"maximum number of device groups exceeded"}"#) }
        }
    }
}
