// SPDX-License-Identifier: Apache-2.0

/// One notification the user sees: in Android's notification drawer, iOS's Notification Center or
/// the browser's notifications.
package struct TrayEntry: Sendable {
    /// The delivery the system showed.
    package let delivery: Delivery
    /// A shown notification with the same tag is replaced; nil replaces nothing.
    package let tag: String?

    package init(delivery: Delivery, tag: String?) {
        self.delivery = delivery
        self.tag = tag
    }
}

/// The notifications shown for one app instance, oldest first, at most `capacity`.
enum NotificationTray {
    /// Android's `NotificationManagerService.MAX_PACKAGE_NOTIFICATIONS` (AOSP,
    /// frameworks/base/services/core/java/com/android/server/notification/NotificationManagerService.java):
    /// a package shows at most 50 notifications. Apple and the browsers publish no number; the
    /// emulator keeps the same bound for them so that the list stays small.
    static let capacity = 50

    /// The tag under which a notification message replaces an earlier one, per platform:
    /// - Android: `android.notification.tag` (legacy `notification.tag`). Without one the FCM SDK
    ///   posts under `"FCM-Notification:" + uptime`, a new tag each time, so nothing is replaced
    ///   (firebase-android-sdk, firebase-messaging/.../CommonNotificationBuilder.java).
    /// - iOS: the `apns-collapse-id` header: "Multiple notifications with the same collapse
    ///   identifier are displayed to the user as a single notification"
    ///   (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns).
    /// - Web: the notification's `tag`, which replaces a shown notification with the same tag
    ///   (https://notifications.spec.whatwg.org/#tag).
    static func tag(of content: MessageContent, platform: Platform) -> String? {
        switch platform {
        case .android:
            return content.android?.notification.first { $0.0 == "tag" }?.1.stringValue
        case .ios:
            return content.apns?.header("apns-collapse-id")
        case .web:
            return content.webpush?.notification?.first { $0.0 == "tag" }?.1.stringValue
        }
    }

    enum PostResult {
        case shown
        /// Shown in place of the entry with the same tag.
        case replaced(TrayEntry)
        /// Shown, and the oldest entry left to keep within `capacity` (iOS, web).
        case pushedOut(TrayEntry)
        /// Not shown: Android refuses a package's notification past `capacity`, unless it
        /// updates one already shown (NotificationManagerService, "Not showing more").
        case refused
    }

    /// An `android_v2` notification's integer `id`, which "is used in conjunction with tag to form
    /// a unique identifier (tag, id)": a notification with the same pair replaces the shown one
    /// (`AndroidNotificationV2.id` in the fcm v1 discovery document; Android's
    /// `NotificationManager.notify(String, int, Notification)`). Nil elsewhere.
    static func notificationId(of entry: TrayEntry, platform: Platform) -> Int64? {
        guard platform == .android, let android = entry.delivery.message?.content.android, android.v2 != nil else { return nil }
        return android.notification.first { $0.0 == "id" }?.1.int64Value
    }

    static func post(_ entry: TrayEntry, into tray: inout [TrayEntry], platform: Platform) -> PostResult {
        let id = notificationId(of: entry, platform: platform)
        if entry.tag != nil || id != nil,
            let index = tray.firstIndex(where: { $0.tag == entry.tag && notificationId(of: $0, platform: platform) == id })
        {
            let replaced = tray.remove(at: index)
            tray.append(entry)
            return .replaced(replaced)
        }
        guard tray.count >= capacity else {
            tray.append(entry)
            return .shown
        }
        if platform == .android { return .refused }
        let oldest = tray.removeFirst()
        tray.append(entry)
        return .pushedOut(oldest)
    }
}
