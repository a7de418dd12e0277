// SPDX-License-Identifier: Apache-2.0

/// How one message behaves on one platform: its priority, lifetime and collapse key once the
/// platform's own block (android / apns headers / webpush headers) has overridden the shared options.
struct DeliveryProfile: Sendable {
    var isNotification: Bool
    var contentAvailable: Bool
    var priority: Priority
    /// Priority as requested, before any platform rule lowered it.
    var originalPriority: Priority
    var ttlSeconds: Int64
    /// The key under which the message collapses, or nil when it is non-collapsible.
    var collapseKey: String?

    var isCollapsible: Bool { collapseKey != nil }

    /// The profile of `content` for an app with id `appId` on `platform` at `now`, built with
    /// `clientSdk` (Android).
    init(_ content: MessageContent, platform: Platform, appId: String, now: Instant, clientSdk: ClientSDK = .current) {
        let ttlDefault = content.ttlSeconds ?? EmulatorSettings.maxTTLSeconds
        switch platform {
        case .android:
            let android = content.android
            switch android?.v2 {
            case .remoteNotification(_, let useAsV1DataMessage):
                // "urgent ... delivered without delay", and shown by the FCM SDK (the v2 guide);
                // on a legacy client, flagged, a data message "by omitting" the notification
                // (`AndroidRemoteNotification.useAsV1DataMessage`, the discovery document).
                isNotification = !(useAsV1DataMessage && clientSdk == .legacy)
                originalPriority = .high
            case .backgroundSync:
                // "Non-urgent data messages ... Delivery can be batched or delayed" (the v2 guide).
                isNotification = false
                originalPriority = .normal
            case nil:
                isNotification = content.notification != nil || !(android?.notification.isEmpty ?? true)
                originalPriority = android?.priority ?? content.priority ?? (isNotification ? .high : .normal)
            }
            contentAvailable = false
            ttlSeconds = android?.ttlSeconds ?? ttlDefault
            collapseKey = android?.collapseKey ?? content.collapseKey
        case .ios:
            let apns = content.apns
            let aps = apns?.aps ?? []
            isNotification = content.notification != nil || aps.contains { $0.0 == "alert" }
            contentAvailable =
                content.contentAvailable
                || aps.contains { $0.0 == "content-available" && $0.1.int64Value == 1 }
            switch Self.apnsPriorityHeader(content) {
            case 10: originalPriority = .high
            case 5, 1: originalPriority = .normal
            default: originalPriority = content.priority ?? (isNotification ? .high : .normal)
            }
            // apns-expiration is an epoch time in seconds; 0 means "now or never" (APNs docs).
            if let expiration = apns?.header("apns-expiration").flatMap({ Int64($0) }) {
                // Clamped before subtracting: the header is peer input and may be any Int64.
                let clamped = min(max(expiration, 0), Int64(1) << 40)
                ttlSeconds = clamped == 0 ? 0 : max(0, clamped - now.millis / 1000)
            } else {
                ttlSeconds = ttlDefault
            }
            collapseKey = apns?.header("apns-collapse-id") ?? content.collapseKey
        case .web:
            let webpush = content.webpush
            isNotification = content.notification != nil || webpush?.notification != nil
            contentAvailable = false
            if let urgency = webpush?.header("urgency") {
                originalPriority = urgency == "high" ? .high : .normal
            } else {
                originalPriority = content.priority ?? (isNotification ? .high : .normal)
            }
            ttlSeconds = webpush?.header("ttl").flatMap { Int64($0) } ?? ttlDefault
            collapseKey = webpush?.header("topic") ?? content.collapseKey
        }
        priority = originalPriority
        if platform == .ios, Self.isBackgroundUpdate(content), Self.apnsPriorityHeader(content) == nil {
            // A background update (content-available and nothing to show) goes with apns-priority
            // 5, as Apple asks of background notifications, which "the system treats as low
            // priority" (https://developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app).
            priority = .normal
        }
        // Notification messages are always collapsible; without a key they share one per app
        // (docs/simulation.md, "Collapse keys";
        // https://firebase.google.com/docs/cloud-messaging/customize-messages/collapsible-message-types).
        // An `android_v2` message of either type is "non-collapsible by default" (the v2 guide).
        if collapseKey == nil, isNotification, platform != .android || content.android?.v2 == nil { collapseKey = "\u{1}app:" + appId }
        ttlSeconds = min(max(ttlSeconds, 0), EmulatorSettings.maxTTLSeconds)
    }

    /// The `apns-priority` header when it is one APNs defines: 10 immediately, 5 and 1 as the
    /// device's power allows (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns).
    static func apnsPriorityHeader(_ content: MessageContent) -> Int? {
        switch content.apns?.header("apns-priority") {
        case "10": return 10
        case "5": return 5
        case "1": return 1
        default: return nil
        }
    }

    /// An iOS message with content-available and no alert, sound or badge: a background update.
    static func isBackgroundUpdate(_ content: MessageContent) -> Bool {
        let aps = content.apns?.aps ?? []
        let contentAvailable = content.contentAvailable || aps.contains { $0.0 == "content-available" && $0.1.int64Value == 1 }
        let shows = content.notification != nil || aps.contains { ["alert", "sound", "badge"].contains($0.0) }
        return contentAvailable && !shows
    }

    /// The collapse key as the app sees it (the implicit per-app key reads as the app id).
    var visibleCollapseKey: String? {
        guard let key = collapseKey else { return nil }
        return key.hasPrefix("\u{1}app:") ? String(key.dropFirst(5)) : key
    }
}

/// The checks every API runs when it accepts a message (docs/simulation.md, "Payload size",
/// "Reserved data keys", "Lifespan (TTL)", "Senders"). Fronts check their own syntax first; these are the service's rules.
enum AcceptanceChecks {
    /// "Maximum payload for both message types is 4096 bytes" (notification and data messages
    /// alike: https://firebase.google.com/docs/cloud-messaging/customize-messages/set-message-type;
    /// an older "2KB limit" for notification messages is no longer on Google's page).
    static let payloadLimit = 4096
    /// "4096 bytes for most messages, or 2048 bytes in the case of messages to topics", and a
    /// condition send is a topic message (https://firebase.google.com/docs/cloud-messaging/http-server-ref, table 9).
    static let topicPayloadLimit = 2048

    static func check(_ content: MessageContent, toTopic: Bool) throws(FCMError) {
        // Each field is read where it lies, in this order; gathering them into arrays first cost
        // a send an allocation each (docs/benchmarks.md).
        func checkKeys(_ pairs: StringPairs?) throws(FCMError) {
            for (key, _) in pairs ?? [] where isReserved(key) {
                throw FCMError(.invalidDataKey, "Invalid data payload key: \(key)", field: "message.data")
            }
        }
        try checkKeys(content.data)
        try checkKeys(content.android?.data)
        try checkKeys(content.webpush?.data)
        func checkCollapseKey(_ key: String?) throws(FCMError) {
            guard (key?.utf8.count ?? 0) > EmulatorSettings.maxCollapseKeyBytes else { return }
            throw FCMError(
                .invalidArgument, "collapse_key is longer than \(EmulatorSettings.maxCollapseKeyBytes) bytes",
                field: "message.android.collapse_key")
        }
        try checkCollapseKey(content.collapseKey)
        try checkCollapseKey(content.android?.collapseKey)
        func checkTTL(_ ttl: Int64?) throws(FCMError) {
            guard let ttl, !(0...EmulatorSettings.maxTTLSeconds).contains(ttl) else { return }
            throw FCMError(.invalidTTL, "TTL must be between 0 and \(EmulatorSettings.maxTTLSeconds) seconds", field: "message.android.ttl")
        }
        try checkTTL(content.ttlSeconds)
        try checkTTL(content.android?.ttlSeconds)
        let limit = toTopic ? topicPayloadLimit : payloadLimit
        let size = payloadSize(content)
        guard size <= limit else {
            throw FCMError(.messageTooBig, "Payload is \(size) bytes; the limit is \(limit)", field: "message")
        }
    }

    /// `from`, `message_type`, and keys starting with `google` or `gcm` are reserved.
    static func isReserved(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// Bytes counted against the limit: every data map's keys and values (`data`, `android.data`,
    /// `webpush.data`), the notification's text fields, and the platform blocks' notification and
    /// payload objects, each byte of the request's payload once.
    static func payloadSize(_ content: MessageContent) -> Int {
        if let measured = content.measuredPayloadSize { return measured }
        // Each list is walked where it lies: joining them first built three arrays a send.
        var size = 0
        func strings(_ pairs: StringPairs?) {
            for (k, v) in pairs ?? [] { size += k.utf8.count + v.utf8.count }
        }
        func objects(_ pairs: [(String, PayloadValue)]?) {
            for (k, v) in pairs ?? [] { size += k.utf8.count + v.measuredSize }
        }
        strings(content.data)
        strings(content.android?.data)
        strings(content.webpush?.data)
        if let n = content.notification {
            size += (n.title?.utf8.count ?? 0) + (n.body?.utf8.count ?? 0) + (n.image?.utf8.count ?? 0)
        }
        objects(content.android?.notification)
        objects(content.apns?.payload)
        objects(content.webpush?.notification)
        return size
    }
}
