// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import Testing

/// `message.android_v2` (docs/http-v1.md, "android_v2"): the bodies are those the Admin SDKs
/// write (snake_case, firebase-admin-java's `@Key` names and firebase-admin-go's integration test
/// messages) and the discovery document's camelCase names.
@Suite("HTTP v1 android_v2")
struct V1AndroidV2Tests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    /// The app of firebase-admin-go's integration test messages (`restricted_package_name`).
    private func device(_ api: InProcess, state: DeviceState, appId: String = "com.google.firebase.testing") throws -> DeviceInfo {
        try api.emulator.createDevice(DeviceSpec(platform: .android, appId: appId, state: state), projectId: DemoProject.id)
    }

    private func inbox(_ api: InProcess, _ d: DeviceInfo) throws -> [Delivery] {
        try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1
    }

    private func refusal(_ api: InProcess, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let response = api.call("POST", send, body)
        #expect(response.status == 400, "\(response.bodyText)", sourceLocation: sourceLocation)
        return try JSONParser.parse(response.body)
    }

    /// firebase-admin-go's `androidV2RemoteNotificationMessage`, as firebase-admin-java's keys spell it.
    private func fullRemoteNotification(_ token: String) -> String {
        #"""
        {"message": {"token": "\#(token)", "notification": {"title": "Title", "body": "Body"},
          "android_v2": {"collapse_key": "test-key", "ttl": "5s", "restricted_package_name": "com.google.firebase.testing",
            "data": {"androidFoo": "androidBar"}, "fcm_options": {"analytics_label": "test-analytics"},
            "direct_boot_ok": true, "bandwidth_constrained_ok": true, "restricted_satellite_ok": true,
            "remote_notification": {"mutable_content": true, "use_as_v1_data_message": true, "notification": {
              "title": "test.title", "body": "test.body", "icon": "test.icon", "color": "#AABBCC", "sound": "test.sound",
              "tag": "test.tag", "click_action": "test.click.action", "body_loc_key": "test.body.loc.key",
              "body_loc_args": ["body.arg1", "body.arg2"], "title_loc_key": "test.title.loc.key",
              "title_loc_args": ["title.arg1", "title.arg2"], "channel_id": "test.channel.id", "image": "https://example.com/image.png",
              "ticker": "test.ticker", "sticky": true, "event_time": "2026-01-01T00:00:00.000000000Z", "local_only": true,
              "notification_priority": "PRIORITY_HIGH", "vibrate_timings": ["0.100000000s", "0.050000000s", "0.250000000s"],
              "default_vibrate_timings": true, "default_sound": true,
              "light_settings": {"color": {"red": 0.6666667, "green": 0.73333335, "blue": 0.8, "alpha": 1.0},
                "light_on_duration": "0.200000000s", "light_off_duration": "0.300000000s"},
              "default_light_settings": true, "visibility": "private", "notification_count": 1, "id": 42}}}}}
        """#
    }

    @Test func aRemoteNotificationWakesDozeAndIsShownAsTheSDKHoldsIt() throws {
        let api = InProcess()
        let d = try device(api, state: .doze)
        let response = api.call("POST", send, fullRemoteNotification(d.token))
        #expect(response.status == 200, "\(response.bodyText)")
        let delivery = try #require(try inbox(api, d).last)
        // "bypass any battery-saving measures and are delivered without delay"; the SDK posts it.
        #expect(delivery.handling == .tray)
        #expect(delivery.priority == .high)
        #expect(delivery.collapseKey == "test-key")
        #expect(delivery.ttlSeconds == 5)
        let payload = delivery.payload(on: .android)
        #expect(payload["data"] == .object([("androidFoo", .string("androidBar"))]))
        #expect(payload["notification"]?["title"] == .string("test.title"))
        #expect(payload["notification"]?["imageUrl"] == .string("https://example.com/image.png"))
        #expect(payload["notification"]?["channelId"] == .string("test.channel.id"))
        #expect(payload["notification"]?["id"] == .int(42))
        #expect(payload["priority"] == .string("high"))
        let tray = try api.emulator.tray(String(d.id), projectId: DemoProject.id)
        #expect(tray.entries.count == 1)
        #expect(delivery.message?.content.android?.v2 == .remoteNotification(mutableContent: true, useAsV1DataMessage: true))
    }

    @Test func aBackgroundSyncWaitsForDozeMaintenanceAsADataMessage() throws {
        let api = InProcess()
        let d = try device(api, state: .doze)
        // firebase-admin-go's `androidV2MinimalBackgroundSyncMessage`, with data, in camelCase.
        let body = #"{"message": {"token": "\#(d.token)", "notification": {"title": "t"}, "androidV2": {"backgroundSync": {}, "data": {"sync": "inbox"}}}}"#
        #expect(api.call("POST", send, body).status == 200)
        #expect(try inbox(api, d).isEmpty)
        _ = try api.emulator.advance(byMillis: 15 * 60 * 1000)
        let delivery = try #require(try inbox(api, d).last)
        #expect(delivery.handling == .app)
        #expect(delivery.callback(on: .android) == "onBackgroundSyncReceived")
        #expect(delivery.priority == .normal)
        #expect(delivery.originalPriority == .normal)
        let payload = delivery.payload(on: .android)
        #expect(payload["data"] == .object([("sync", .string("inbox"))]))
        // A background sync is a data message: the top-level notification is not the app's.
        #expect(payload["notification"] == nil)
        #expect(try api.emulator.tray(String(d.id), projectId: DemoProject.id).entries.isEmpty)
    }

    @Test func inTheForegroundTheAppsV2CallbacksGetThem() throws {
        let api = InProcess()
        let d = try device(api, state: .foreground)
        let remote = #"{"message": {"token": "\#(d.token)", "android_v2": {"remote_notification": {"notification": {"title": "Goal"}}}}}"#
        #expect(api.call("POST", send, remote).status == 200)
        let delivery = try #require(try inbox(api, d).last)
        #expect(delivery.callback(on: .android) == "onNotificationReceived")
        // "non-collapsible by default" (the v2 guide), unlike a v1 notification message.
        #expect(delivery.collapseKey == nil)
        #expect(delivery.payload(on: .android)["collapseKey"] == .string("do_not_collapse"))
        // The discovery document's camelCase names, flags included.
        let camel = #"""
            {"message": {"token": "\#(d.token)", "androidV2": {"collapseKey": "score", "remoteNotification": \#
            {"mutableContent": true, "useAsV1DataMessage": true, "notification": {"title": "Goal", "channelId": "goals"}}}}}
            """#
        #expect(api.call("POST", send, camel).status == 200)
        let flagged = try #require(try inbox(api, d).last)
        #expect(flagged.message?.content.android?.v2 == .remoteNotification(mutableContent: true, useAsV1DataMessage: true))
        #expect(flagged.collapseKey == "score")
        #expect(flagged.payload(on: .android)["notification"]?["channelId"] == .string("goals"))
    }

    @Test func theSameTagAndIdReplaceTheShownNotification() throws {
        let api = InProcess()
        let d = try device(api, state: .background)
        func post(_ title: String, id: Int?) {
            let idField = id.map { #", "id": \#($0)"# } ?? ""
            let body = #"""
                {"message": {"token": "\#(d.token)", "android_v2": {"remote_notification": \#
                {"notification": {"title": "\#(title)", "tag": "score"\#(idField)}}}}}
                """#
            #expect(api.call("POST", send, body).status == 200)
        }
        post("1-0", id: 7)
        post("2-0", id: 7)
        post("chat", id: 8)
        post("plain", id: nil)
        let tray = try api.emulator.tray(String(d.id), projectId: DemoProject.id).entries
        #expect(tray.map { $0.delivery.payload(on: .android)["notification"]?["title"] } == [.string("2-0"), .string("chat"), .string("plain")])
    }

    @Test func androidAndAndroidV2TogetherAreRefusedAsAOneofSetTwice() throws {
        let api = InProcess()
        let both = try refusal(api, #"{"message": {"token": "t", "android": {}, "androidV2": {"background_sync": {}}}}"#)
        let text = "Invalid value at 'message' (oneof), oneof field 'android_config' is already set. Cannot set 'androidV2'"
        #expect(both.string("error.message") == text)
        #expect(both.string("error.status") == "INVALID_ARGUMENT")
        #expect(both.string("error.details.0.@type") == "type.googleapis.com/google.rpc.BadRequest")
        #expect(both.string("error.details.0.fieldViolations.0.field") == "message")
        #expect(both["error"]?["details"]?.arrayValue?.count == 1)
        // Either order, either spelling; a null `android` is not set.
        let reversed = try refusal(api, #"{"message": {"token": "t", "android_v2": {"background_sync": {}}, "android": {}}}"#)
        #expect(reversed.string("error.message")?.hasSuffix("Cannot set 'android'") == true)
        let d = try device(api, state: .foreground)
        let null = #"{"message": {"token": "\#(d.token)", "android": null, "android_v2": {"background_sync": {}}}}"#
        #expect(api.call("POST", send, null).status == 200)
    }

    @Test func oneMessageTypeExactly() throws {
        let api = InProcess()
        let two = try refusal(api, #"{"message": {"token": "t", "android_v2": {"remote_notification": {}, "backgroundSync": {}}}}"#)
        #expect(
            two.string("error.message")
                == "Invalid value at 'message.android_v2' (oneof), oneof field 'message_type' is already set. Cannot set 'backgroundSync'")
        let d = try device(api, state: .foreground)
        let none = try refusal(api, #"{"message": {"token": "\#(d.token)", "android_v2": {"data": {"a": "b"}}}}"#)
        #expect(none.string("error.details.1.fieldViolations.0.field") == "message.android_v2")
        #expect(none.string("error.details.0.errorCode") == "INVALID_ARGUMENT")
    }

    @Test func theFieldsAreCheckedAsAndroidsAre() throws {
        let api = InProcess()
        let d = try device(api, state: .foreground)
        func field(_ v2: String) throws -> String? {
            try refusal(api, #"{"message": {"token": "\#(d.token)", "android_v2": \#(v2)}}"#).string("error.details.1.fieldViolations.0.field")
        }
        #expect(try field(#"{"background_sync": {}, "ttl": "2419201s"}"#) == "message.android_v2.ttl")
        #expect(try field(#"{"background_sync": {}, "fcm_options": {"analytics_label": "a b"}}"#) == "message.android_v2.fcm_options.analytics_label")
        #expect(
            try field(#"{"remote_notification": {"notification": {"color": "red"}}}"#)
                == "message.android_v2.remote_notification.notification.color")
        // `priority` is AndroidConfig's; AndroidConfigV2 implies it, and `proxy` is not V2's.
        let priority = try refusal(api, #"{"message": {"token": "t", "android_v2": {"priority": "HIGH"}}}"#)
        #expect(priority.string("error.message") == #"Invalid JSON payload received. Unknown name "priority" at 'message.android_v2': Cannot find field."#)
        let id = try refusal(api, #"{"message": {"token": "t", "android_v2": {"remote_notification": {"notification": {"id": 2147483648}}}}}"#)
        #expect(id.string("error.message") == "Invalid value at 'message.android_v2.remote_notification.notification.id' (TYPE_INT32), 2147483648")
        let other = try device(api, state: .foreground, appId: "com.example.other")
        let restricted = #"{"background_sync": {}, "restricted_package_name": "com.google.firebase.testing"}"#
        let wrongApp = try refusal(api, #"{"message": {"token": "\#(other.token)", "android_v2": \#(restricted)}}"#)
        #expect(wrongApp.string("error.details.1.fieldViolations.0.field") == "message.android_v2.restricted_package_name")
        // The payload limit counts the new fields too.
        let big = String(repeating: "x", count: 4097)
        let tooBig = api.call("POST", send, #"{"message": {"token": "\#(d.token)", "android_v2": {"background_sync": {}, "data": {"k": "\#(big)"}}}}"#)
        #expect(tooBig.status == 400)
    }
}
