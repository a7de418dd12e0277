// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON

/// How a legacy `notification` object reaches each platform (legacy reference, notification
/// payload table): the shared title/body/image, Android's fields, the APNs `aps` dictionary, and
/// the web notification.
package enum LegacyPayload {
    /// `from`, `message_type`, and keys starting with `google` or `gcm` (docs/simulation.md,
    /// "Reserved data keys"; https://firebase.google.com/docs/cloud-messaging/http-server-ref).
    package static func isReserved(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// Legacy names of Android notification fields → `RemoteMessage.Notification` getter names.
    private static let androidNames: [String: String] = [
        "android_channel_id": "channelId", "icon": "icon", "sound": "sound", "tag": "tag", "color": "color",
        "click_action": "clickAction", "body_loc_key": "bodyLocKey", "body_loc_args": "bodyLocArgs",
        "title_loc_key": "titleLocKey", "title_loc_args": "titleLocArgs", "image": "imageUrl", "ticker": "ticker",
    ]

    /// The `notification` keys the reference types as strings (tables 2a–2c). `badge` is left out:
    /// senders write it as a number too, and it reaches `aps` as one.
    private static let stringKeys = [
        "title", "body", "android_channel_id", "icon", "sound", "tag", "color", "click_action", "body_loc_key",
        "title_loc_key", "subtitle", "image", "ticker",
    ]

    /// Refuses what the reference lists as "Invalid Parameters" (400, table 9: "Check that the
    /// provided parameters have the right name and type"): a notification key of the wrong type,
    /// which would otherwise be dropped, and a web URL that is not HTTPS ("For all URL values,
    /// HTTPS is required", table 2c; https://firebase.google.com/docs/cloud-messaging/http-server-ref).
    package static func check(notification json: [(String, JSONValue)]) throws(LegacyBadRequest) {
        for (key, value) in json where stringKeys.contains(key) && value != .null && value.stringValue == nil {
            throw LegacyBadRequest(text: "InvalidParameters: \"notification.\(key)\" must be a JSON string: \(value.encoded())")
        }
        for (key, value) in json where WebNotificationURL.legacyKeys.contains(key) {
            if let url = value.stringValue, !WebNotificationURL.isAllowed(url) {
                throw LegacyBadRequest(text: "InvalidParameters: \"notification.\(key)\" must be an HTTPS URL")
            }
        }
    }

    package static func apply(notification json: [(String, JSONValue)], to content: inout MessageContent) {
        let notification = json.payloadPairs
        func text(_ key: String) -> String? { notification.first { $0.0 == key }?.1.stringValue }
        content.notification = NotificationContent(title: text("title"), body: text("body"), image: text("image"))
        let android = notification.compactMap { key, value in androidNames[key].map { ($0, value) } }
        if !android.isEmpty { content.android = AndroidOptions(notification: android) }

        var alert: [(String, PayloadValue)] = []
        for (legacy, apns) in [
            ("title", "title"), ("body", "body"), ("subtitle", "subtitle"), ("body_loc_key", "loc-key"),
            ("body_loc_args", "loc-args"), ("title_loc_key", "title-loc-key"), ("title_loc_args", "title-loc-args"),
        ] {
            if let value = notification.first(where: { $0.0 == legacy })?.1 { alert.append((apns, value)) }
        }
        var aps: [(String, PayloadValue)] = []
        if !alert.isEmpty { aps.append(("alert", .object(alert))) }
        if let badge = text("badge") { aps.append(("badge", Int64(badge).map(PayloadValue.int) ?? .string(badge))) }
        if let sound = text("sound") { aps.append(("sound", .string(sound))) }
        if let category = text("click_action") { aps.append(("category", .string(category))) }
        if !aps.isEmpty { content.apns = APNsOptions(payload: [("aps", .object(aps))]) }

        let web = notification.filter { ["title", "body", "icon", "click_action", "image"].contains($0.0) }
        if !web.isEmpty { content.webpush = WebpushOptions(notification: web) }
    }
}
