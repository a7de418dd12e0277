// SPDX-License-Identifier: Apache-2.0

/// Ordered string pairs, as `data` maps are written (order is kept for rendering and error paths).
public typealias StringPairs = [(String, String)]

/// The notification part that every platform shares (v1 `notification`, legacy `notification`).
package struct NotificationContent: Sendable {
    package var title: String?
    package var body: String?
    package var image: String?

    package init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}

/// Android-only options (v1 `android`, legacy top-level keys as they apply to Android).
package struct AndroidOptions: Sendable {
    package var collapseKey: String?
    package var priority: Priority?
    package var ttlSeconds: Int64?
    package var restrictedPackageName: String?
    /// Replaces the message's `data` on Android when set.
    package var data: StringPairs?
    /// Notification fields as the app's `RemoteMessage.Notification` exposes them
    /// (`title`, `body`, `icon`, `channelId`, `clickAction`, …), in request order.
    package var notification: [(String, PayloadValue)]
    /// The message type of a v1 `android_v2` send; nil for `android` and the legacy protocols.
    package var v2: AndroidV2Type?

    package init(
        collapseKey: String? = nil, priority: Priority? = nil, ttlSeconds: Int64? = nil,
        restrictedPackageName: String? = nil, data: StringPairs? = nil,
        notification: [(String, PayloadValue)] = [], v2: AndroidV2Type? = nil
    ) {
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
        self.v2 = v2
    }
}

/// `AndroidConfigV2`'s two message types, whose type implies the priority
/// (https://firebase.google.com/docs/cloud-messaging/send/v2-api, "What's new in AndroidConfigV2").
package enum AndroidV2Type: Sendable, Equatable {
    /// `remote_notification`: an urgent notification the FCM SDK posts itself, delivered without
    /// delay past battery saving; the app's callback is `onNotificationReceived`.
    /// `mutableContent`: the app may update what is shown; `useAsV1DataMessage`: clients of the
    /// older SDKs get it as a data message, without its notification.
    case remoteNotification(mutableContent: Bool, useAsV1DataMessage: Bool)
    /// `background_sync`: a non-urgent data message that may be batched or delayed; the app's
    /// callback is `onBackgroundSyncReceived`.
    case backgroundSync
}

/// APNs options (v1 `apns`): headers and the payload whose `aps` dictionary iOS receives.
package struct APNsOptions: Sendable {
    package var headers: StringPairs
    /// The `payload` object: `aps` plus custom keys.
    package var payload: [(String, PayloadValue)]
    package var image: String?

    package init(headers: StringPairs = [], payload: [(String, PayloadValue)] = [], image: String? = nil) {
        self.headers = headers
        self.payload = payload
        self.image = image
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name }?.1
    }

    var aps: [(String, PayloadValue)]? { payload.first { $0.0 == "aps" }?.1.objectValue }
}

/// Web push options (v1 `webpush`).
package struct WebpushOptions: Sendable {
    package var headers: StringPairs
    package var data: StringPairs?
    package var notification: [(String, PayloadValue)]?
    package var link: String?
    /// The decrypted body of an RFC 8030 push (docs/receivers.md): what a service worker's
    /// `push` event reads as `event.data`. Nil for messages sent through FCM's send APIs.
    package var rawData: [UInt8]?
    /// An RFC 8030 push to a real receiver, as its publisher encrypted it: relayed, never
    /// decrypted (the receiver alone holds its private key; docs/receivers.md).
    package var relayed: RelayedPush?

    package init(
        headers: StringPairs = [], data: StringPairs? = nil, notification: [(String, PayloadValue)]? = nil, link: String? = nil,
        rawData: [UInt8]? = nil
    ) {
        self.rawData = rawData
        self.headers = headers
        self.data = data
        self.notification = notification
        self.link = link
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name }?.1
    }
}

/// A Web Push body relayed to a real receiver, with what it needs to decrypt it.
package struct RelayedPush: Sendable {
    /// `aes128gcm` (RFC 8291: the salt and key are in the body's header) or `aesgcm`
    /// (draft-ietf-webpush-encryption-04: they travel beside it).
    package let contentEncoding: String
    package let body: [UInt8]
    package let salt: [UInt8]?
    package let senderKey: [UInt8]?

    package init(contentEncoding: String, body: [UInt8], salt: [UInt8]?, senderKey: [UInt8]?) {
        self.contentEncoding = contentEncoding
        self.body = body
        self.salt = salt
        self.senderKey = senderKey
    }
}

/// Everything a message carries besides its target, in API-neutral form. Fronts fill it from
/// their own request shapes; the core decides what each platform receives.
public struct MessageContent: Sendable {
    package var data: StringPairs
    package var notification: NotificationContent?
    package var android: AndroidOptions?
    package var apns: APNsOptions?
    package var webpush: WebpushOptions?
    /// Top-level options of the legacy and XMPP protocols, which apply to every platform.
    package var collapseKey: String?
    package var priority: Priority?
    package var ttlSeconds: Int64?
    package var contentAvailable: Bool
    package var mutableContent: Bool
    package var restrictedPackageName: String?
    package var deliveryReceiptRequested: Bool
    /// The app server's own id for the message (CCS `message_id`), echoed in receipts.
    package var clientMessageId: String?
    /// The payload's size as the front measured it on the wire, for formats whose one field the
    /// neutral form repeats per platform (a legacy `notification` becomes the shared notification,
    /// the `aps` alert and the web notification); nil: the core counts keys and values itself.
    package var measuredPayloadSize: Int?

    package init(
        data: StringPairs = [], notification: NotificationContent? = nil, android: AndroidOptions? = nil,
        apns: APNsOptions? = nil, webpush: WebpushOptions? = nil, collapseKey: String? = nil,
        priority: Priority? = nil, ttlSeconds: Int64? = nil, contentAvailable: Bool = false,
        mutableContent: Bool = false, restrictedPackageName: String? = nil, deliveryReceiptRequested: Bool = false
    ) {
        self.data = data
        self.notification = notification
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.restrictedPackageName = restrictedPackageName
        self.deliveryReceiptRequested = deliveryReceiptRequested
    }
}
