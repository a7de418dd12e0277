// SPDX-License-Identifier: Apache-2.0

/// The URLs of a web notification: "For all URL values, HTTPS is required" (legacy reference,
/// web notification keys, https://firebase.google.com/docs/cloud-messaging/http-server-ref,
/// table 2c), as the v1 reference asks of `webpush.fcm_options.link`
/// (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages#webpushfcmoptions).
package enum WebNotificationURL {
    /// The v1 `webpush.notification` keys that hold a URL: the Web Notification API's `icon`,
    /// `image` and `badge`, and `click_action`, which the web SDK opens when no
    /// `fcm_options.link` is set (firebase-js-sdk, packages/messaging/src/listeners/sw-listeners.ts).
    package static let v1Keys = ["icon", "image", "badge", "click_action"]
    /// The legacy `notification` keys that are URLs on the web (table 2c). On Android and iOS the
    /// same keys name a drawable, an intent action or a category, which have no scheme.
    package static let legacyKeys = ["icon", "click_action"]

    /// Whether `value` is acceptable where a web notification wants a URL: an `https:` URL, or a
    /// path with no scheme, which the browser resolves against the page's own (HTTPS) origin.
    /// `http:`, `data:`, `javascript:` and every other scheme are refused.
    package static func isAllowed(_ value: String) -> Bool {
        guard let scheme = scheme(of: value) else { return true }
        return scheme.lowercased() == "https"
    }

    /// The URL scheme (RFC 3986, 3.1: a letter, then letters, digits, `+`, `-` or `.`, then `:`).
    private static func scheme(of value: String) -> Substring? {
        guard let colon = value.firstIndex(of: ":") else { return nil }
        let scheme = value[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        let allowed = scheme.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
        return allowed ? scheme : nil
    }
}
