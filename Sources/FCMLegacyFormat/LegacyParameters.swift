// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// The names the legacy format reads, and what a request's other names are told (docs/legacy.md,
/// "Unknown parameters"). The legacy service ignored a name it did not know: the request was
/// accepted and the field had no effect, so a misspelt `time_to_lve` left the message with FCM's
/// default of four weeks. The emulator answers the same, and names each ignored key, with the
/// known one it is nearest to (`NearestName`: `-` for `_`, a swap or a letter too many is one edit),
/// in the `accepted` event.
package enum LegacyParameters {
    /// Table 1 of the legacy HTTP reference and of the XMPP reference (targets, options, payload),
    /// read by one reader for both (https://firebase.google.com/docs/cloud-messaging/http-server-ref,
    /// https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref), with what only one of
    /// them reads: `registration_ids` over HTTP, `message_id` on CCS, one recipient per stanza.
    static let topLevel = [
        "to", "condition", "notification_key", "collapse_key", "priority", "content_available", "mutable_content",
        "time_to_live", "restricted_package_name", "dry_run", "data", "notification", "delivery_receipt_requested",
    ]
    static let httpOnly = "registration_ids"
    static let ccsOnly = "message_id"

    /// The top-level names `/fcm/send` (`multicast`) or CCS reads.
    static func topLevel(multicast: Bool) -> [String] { topLevel + [multicast ? httpOnly : ccsOnly] }

    /// Tables 2a–2c (iOS, Android, web), with the `image` and `ticker` keys the emulator also
    /// passes to Android (`LegacyPayload`).
    static let notification = [
        "title", "body", "sound", "badge", "click_action", "subtitle", "body_loc_key", "body_loc_args", "title_loc_key",
        "title_loc_args", "android_channel_id", "icon", "tag", "color", "image", "ticker",
    ]

    /// The `keys` that `known` does not hold, each with its `prefix` (`notification.`).
    static func unknown(in keys: [String], known: [String], prefix: String = "") -> [String] {
        keys.filter { !known.contains($0) }.map { prefix + $0 }
    }

    /// What the `accepted` event says of `ignored`: `ignored unknown parameter "time_to_lve" (did
    /// you mean "time_to_live"?)`, one clause per key; nil when none was ignored.
    package static func notice(ignored: [String]) -> String? {
        guard !ignored.isEmpty else { return nil }
        // A flood of unknown keys is named in part: the event log keeps short details.
        let shown = ignored.prefix(5).map { key in
            let (prefix, name) = split(key)
            // Suggestions come from both protocols' names: `registration_ids` on CCS has none.
            let known = prefix.isEmpty ? topLevel + [httpOnly, ccsOnly] : notification
            let hint = NearestName.suggestion(for: name, among: known).map { " (did you mean \"\(prefix)\($0)\"?)" } ?? ""
            return "ignored unknown parameter \"\(shownName(key))\"\(hint)"
        }
        let more = ignored.count > 5 ? ", and \(ignored.count - 5) more" : ""
        return shown.joined(separator: ", ") + more
    }

    private static func split(_ key: String) -> (prefix: String, name: String) {
        key.hasPrefix("notification.") ? ("notification.", String(key.dropFirst("notification.".count))) : ("", key)
    }

    /// A key as the notice shows it: the peer's text, bounded.
    private static func shownName(_ key: String) -> String {
        key.utf8.count > 64 ? String(key.prefix(64)) + "…" : key
    }
}
