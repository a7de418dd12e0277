// SPDX-License-Identifier: Apache-2.0

/// Ordered string pairs, as `data` maps are written (order is kept for rendering and error paths).
public typealias StringPairs = [(String, String)]

/// The notification part that every platform shares (v1 `notification`, legacy `notification`).
public struct NotificationContent: Sendable {
    public var title: String?
    public var body: String?
    public var image: String?

    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}

/// Android-only options (v1 `android`, legacy top-level keys as they apply to Android).
public struct AndroidOptions: Sendable {
    public var collapseKey: String?
    public var priority: Priority?
    public var ttlSeconds: Int64?
    public var restrictedPackageName: String?
    /// Replaces the message's `data` on Android when set.
    public var data: StringPairs?
    /// Notification fields as the app's `RemoteMessage.Notification` exposes them
    /// (`title`, `body`, `icon`, `channelId`, `clickAction`, …), in request order.
    public var notification: [(String, PayloadValue)]

    public init(
        collapseKey: String? = nil, priority: Priority? = nil, ttlSeconds: Int64? = nil,
        restrictedPackageName: String? = nil, data: StringPairs? = nil,
        notification: [(String, PayloadValue)] = []
    ) {
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
    }
}

/// APNs options (v1 `apns`): headers and the payload whose `aps` dictionary iOS receives.
public struct APNsOptions: Sendable {
    public var headers: StringPairs
    /// The `payload` object: `aps` plus custom keys.
    public var payload: [(String, PayloadValue)]
    public var image: String?

    public init(headers: StringPairs = [], payload: [(String, PayloadValue)] = [], image: String? = nil) {
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
public struct WebpushOptions: Sendable {
    public var headers: StringPairs
    public var data: StringPairs?
    public var notification: [(String, PayloadValue)]?
    public var link: String?

    public init(headers: StringPairs = [], data: StringPairs? = nil, notification: [(String, PayloadValue)]? = nil, link: String? = nil) {
        self.headers = headers
        self.data = data
        self.notification = notification
        self.link = link
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name }?.1
    }
}

/// Everything a message carries besides its target, in API-neutral form. Fronts fill it from
/// their own request shapes; the core decides what each platform receives.
public struct MessageContent: Sendable {
    public var data: StringPairs
    public var notification: NotificationContent?
    public var android: AndroidOptions?
    public var apns: APNsOptions?
    public var webpush: WebpushOptions?
    /// Top-level options of the legacy and XMPP protocols, which apply to every platform.
    public var collapseKey: String?
    public var priority: Priority?
    public var ttlSeconds: Int64?
    public var contentAvailable: Bool
    public var mutableContent: Bool
    public var restrictedPackageName: String?
    public var deliveryReceiptRequested: Bool
    /// The app server's own id for the message (CCS `message_id`), echoed in receipts.
    public var clientMessageId: String?
    /// The payload's size as the front measured it on the wire, for formats whose one field the
    /// neutral form repeats per platform (a legacy `notification` becomes the shared notification,
    /// the `aps` alert and the web notification); nil: the core counts keys and values itself.
    public var measuredPayloadSize: Int?

    public init(
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
