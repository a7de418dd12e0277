// SPDX-License-Identifier: Apache-2.0

import FCMCore
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
    /// senders write it as a number too, and it reaches `aps` as one. `sound` is left out too: on
    /// Apple platforms it is a string "or dictionary", the dictionary being an iOS critical alert's
    /// sound (XMPP reference, table 2a, as its Japanese edition words it; docs/legacy.md).
    private static let stringKeys = [
        "title", "body", "android_channel_id", "icon", "tag", "color", "click_action", "body_loc_key",
        "title_loc_key", "subtitle", "image", "ticker",
    ]

    /// Refuses what the reference lists as "Invalid Parameters" (400, table 9: "Check that the
    /// provided parameters have the right name and type"): a notification key of the wrong type,
    /// which would otherwise be dropped (https://firebase.google.com/docs/cloud-messaging/http-server-ref).
    /// Web URLs are checked per recipient (`webURLRefusal`): the same keys name an Android intent
    /// action or an iOS category, which may hold a colon (`reply:now`) and have no scheme to check.
    package static func check(notification json: [(String, JSONValue)]) throws(LegacyBadRequest) {
        for (key, value) in json where stringKeys.contains(key) && value != .null && value.stringValue == nil {
            throw LegacyBadRequest(text: "InvalidParameters: \"notification.\(key)\" must be a JSON string: \(value.encoded())")
        }
        for (key, value) in json where key == "sound" && value != .null && value.stringValue == nil && value.objectValue == nil {
            throw LegacyBadRequest(text: "InvalidParameters: \"notification.sound\" must be a JSON string or object: \(value.encoded())")
        }
    }

    /// The refusal of a message whose web notification names a URL that is not HTTPS: "For all
    /// URL values, HTTPS is required" is a row of the web table only (table 2c), so a front asks
    /// it of a send that reaches a web app, never of one to Android or iOS.
    package static func webURLRefusal(_ content: MessageContent) -> LegacyBadRequest? {
        for (key, value) in content.webpush?.notification ?? [] where WebNotificationURL.legacyKeys.contains(key) {
            if let url = value.stringValue, !WebNotificationURL.isAllowed(url) {
                return LegacyBadRequest(text: "InvalidParameters: \"notification.\(key)\" must be an HTTPS URL")
            }
        }
        return nil
    }

    package static func apply(notification json: [(String, JSONValue)], to content: inout MessageContent) {
        let notification = json
        func text(_ key: String) -> String? { notification.first { $0.0 == key }?.1.stringValue }
        content.notification = NotificationContent(title: text("title"), body: text("body"), image: text("image"))
        // Android's sound is a resource name (table 2b): a dictionary, an iOS critical alert's, is not one.
        let android = notification.compactMap { key, value in
            key == "sound" && value.stringValue == nil ? nil : androidNames[key].map { ($0, value) }
        }
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
        if let badge = notification.first(where: { $0.0 == "badge" })?.1 {
            // A string of digits reaches `aps` as the number APNs reads; a number as it was sent.
            switch badge {
            case .string(let text): aps.append(("badge", Int64(text).map(PayloadValue.int) ?? .string(text)))
            case .number: aps.append(("badge", badge))
            default: break
            }
        }
        if let sound = notification.first(where: { $0.0 == "sound" })?.1, sound.stringValue != nil || sound.objectValue != nil {
            aps.append(("sound", sound))
        }
        if let category = text("click_action") { aps.append(("category", .string(category))) }
        if !aps.isEmpty { content.apns = APNsOptions(payload: [("aps", .object(aps))]) }

        let web = notification.filter { ["title", "body", "icon", "click_action", "image"].contains($0.0) }
        if !web.isEmpty { content.webpush = WebpushOptions(notification: web) }
    }
}
