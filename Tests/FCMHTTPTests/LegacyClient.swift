// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport

/// A legacy app server and its apps on an in-process emulator: `/fcm/send` with the demo
/// project's server key, devices of each platform, and the payload an app got, as bytes.
struct LegacyClient {
    let api = InProcess()
    private let key = [("Authorization", "key=\(DemoProject.serverKey)")]

    func send(_ body: String) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(method: "POST", target: "/fcm/send", headers: [("Content-Type", "application/json")] + key, body: body))
    }

    func device(_ platform: Platform, state: DeviceState) throws -> DeviceInfo {
        try api.emulator.createDevice(
            DeviceSpec(platform: platform, appId: DeviceSpec.defaultAppId(for: platform), state: state), projectId: DemoProject.id)
    }

    func inbox(_ d: DeviceInfo) throws -> [Delivery] {
        try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1
    }

    /// The payload of the last message `d` received, as its platform hands it to the app.
    func lastPayload(_ d: DeviceInfo) throws -> PayloadValue? {
        try inbox(d).last?.payload(on: d.platform)
    }

    /// A payload value as the JSON text an app would read.
    static func bytes(_ value: PayloadValue?) -> String? { value.map { $0.encoded() } }
}
