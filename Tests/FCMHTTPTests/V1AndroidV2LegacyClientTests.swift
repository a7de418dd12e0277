// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import Testing

/// `android_v2` on an app built with an FCM client SDK older than the v2 callbacks (docs/http-v1.md,
/// "android_v2"): FCM "automatically translates the message for devices running older client
/// SDKs", and `use_as_v1_data_message` makes a remote notification a data message there "by
/// omitting" its notification.
@Suite("HTTP v1 android_v2 on legacy clients")
struct V1AndroidV2LegacyClientTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    private func device(_ api: InProcess, state: DeviceState, sdk: ClientSDK = .legacy) throws -> DeviceInfo {
        var spec = DeviceSpec(platform: .android, appId: "com.example.app", state: state)
        spec.clientSdk = sdk
        return try api.emulator.createDevice(spec, projectId: DemoProject.id)
    }

    private func last(_ api: InProcess, _ d: DeviceInfo) throws -> Delivery {
        try #require(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.last)
    }

    private func remote(_ token: String, dataMessage: Bool) -> String {
        #"""
        {"message": {"token": "\#(token)", "android_v2": {"data": {"score": "2-1"}, "remote_notification": {
          "use_as_v1_data_message": \#(dataMessage), "notification": {"title": "Goal", "tag": "match", "id": 7}}}}}
        """#
    }

    private func tray(_ api: InProcess, _ d: DeviceInfo) throws -> [TrayEntry] {
        try api.emulator.tray(String(d.id), projectId: DemoProject.id).entries
    }

    @Test func aRemoteNotificationIsAV1NotificationMessageThere() throws {
        let api = InProcess()
        let background = try device(api, state: .background)
        #expect(api.call("POST", send, remote(background.token, dataMessage: false)).status == 200)
        let shown = try last(api, background)
        #expect(shown.handling == .tray)
        #expect(shown.payload(on: .android, clientSdk: .legacy)["notification"]?["title"] == .string("Goal"))
        #expect(try tray(api, background).count == 1)

        let foreground = try device(api, state: .foreground)
        #expect(api.call("POST", send, remote(foreground.token, dataMessage: false)).status == 200)
        let received = try last(api, foreground)
        #expect(received.callback(on: .android, clientSdk: .legacy) == "onMessageReceived")
        #expect(received.payload(on: .android, clientSdk: .legacy)["notification"]?["id"] == .int(7))
        #expect(received.priority == .high)
    }

    @Test func useAsV1DataMessageDropsTheNotificationOnALegacyClientOnly() throws {
        let api = InProcess()
        let legacy = try device(api, state: .background)
        #expect(api.call("POST", send, remote(legacy.token, dataMessage: true)).status == 200)
        let data = try last(api, legacy)
        // A data message: handed to the app in the background, never shown, still urgent.
        #expect(data.handling == .app)
        #expect(data.callback(on: .android, clientSdk: .legacy) == "onMessageReceived")
        #expect(data.priority == .high)
        let payload = data.payload(on: .android, clientSdk: .legacy)
        #expect(payload["notification"] == nil)
        #expect(payload["data"] == .object([("score", .string("2-1"))]))
        #expect(try tray(api, legacy).isEmpty)

        // A current client has the v2 callbacks: the flag changes nothing there.
        let current = try device(api, state: .background, sdk: .current)
        #expect(api.call("POST", send, remote(current.token, dataMessage: true)).status == 200)
        let shown = try last(api, current)
        #expect(shown.handling == .tray)
        #expect(shown.payload(on: .android)["notification"]?["title"] == .string("Goal"))
    }

    @Test func aBackgroundSyncIsANormalPriorityDataMessageThere() throws {
        let api = InProcess()
        let d = try device(api, state: .doze)
        let body = #"{"message": {"token": "\#(d.token)", "android_v2": {"background_sync": {}, "data": {"sync": "inbox"}}}}"#
        #expect(api.call("POST", send, body).status == 200)
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.isEmpty)
        _ = try api.emulator.advance(byMillis: 15 * 60 * 1000)
        let synced = try last(api, d)
        #expect(synced.callback(on: .android, clientSdk: .legacy) == "onMessageReceived")
        #expect(synced.priority == .normal)
    }

    @Test func theControlAPITakesAndRendersTheClientSDK() throws {
        let api = InProcess()
        let created = api.call("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform": "android", "clientSdk": "legacy"}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        let device = try JSONParser.parse(created.body)
        #expect(device["clientSdk"] == .string("legacy"))
        let token = try #require(device["token"]?.stringValue)
        let id = try #require(device["id"]?.stringValue)
        #expect(api.call("POST", send, remote(token, dataMessage: true)).status == 200)
        let inbox = try JSONParser.parse(api.call("GET", "/emulator/v1/projects/demo-fcm-emu/devices/\(id)/inbox").body)
        let delivery = try #require(inbox["deliveries"]?.arrayValue?.last)
        #expect(delivery["callback"] == .string("onMessageReceived"))
        #expect(delivery["payload"]?["notification"] == nil)

        let ios = api.call("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform": "ios", "clientSdk": "legacy"}"#)
        #expect(ios.status == 400)
        #expect(ios.bodyText.contains("clientSdk is for Android devices"))
        let unknown = api.call("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform": "android", "clientSdk": "v0"}"#)
        #expect(unknown.status == 400)
        #expect(unknown.bodyText.contains("current, legacy"))
    }
}
