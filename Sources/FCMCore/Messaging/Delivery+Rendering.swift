// SPDX-License-Identifier: Apache-2.0

/// What the app sees, per platform (docs/simulation.md, "Android rendering", "iOS rendering" and
/// "Web rendering", each with its public page).
extension Delivery {
    /// The app-side entry point that got the delivery; an Android app built with `clientSdk`.
    package func callback(on platform: Platform, clientSdk: ClientSDK = .current) -> String {
        if kind == .deletedMessages { return platform == .android ? "onDeletedMessages" : "deletedMessages" }
        switch (platform, handling) {
        case (_, .tray): return "notificationTray"
        case (.android, _):
            // The v2 client callbacks (https://firebase.google.com/docs/cloud-messaging/send/v2-api);
            // a legacy client has only `onMessageReceived`.
            guard clientSdk == .current else { return "onMessageReceived" }
            switch message?.content.android?.v2 {
            case .remoteNotification: return "onNotificationReceived"
            case .backgroundSync: return "onBackgroundSyncReceived"
            case nil: return "onMessageReceived"
            }
        case (.ios, .silent): return "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"
        case (.ios, _):
            return message.map { DeliveryProfile($0.content, platform: .ios, appId: "", now: time).isNotification } == true
                ? "userNotificationCenter(_:willPresent:withCompletionHandler:)"
                : "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"
        case (.web, _): return appState == .foreground ? "onMessage" : "onBackgroundMessage"
        }
    }

    /// The `apns-priority` the message went to APNs with, for iOS: the v1 header when it names
    /// one, else 10 for high priority and 5 for normal ("On Apple platforms, these correspond to
    /// APNs priorities 5 and 10", https://firebase.google.com/docs/cloud-messaging/http-server-ref).
    package var apnsPriority: Int? {
        guard let message else { return nil }
        return DeliveryProfile.apnsPriorityHeader(message.content) ?? (priority == .high ? 10 : 5)
    }

    /// The payload as the platform hands it to the app: Android `RemoteMessage`, the iOS
    /// `userInfo` dictionary, or the web `MessagePayload`.
    package func payload(on platform: Platform, clientSdk: ClientSDK = .current) -> PayloadValue {
        guard let message else { return .object([]) }
        switch platform {
        case .android: return androidPayload(message, clientSdk: clientSdk)
        case .ios: return iosPayload(message)
        case .web: return webPayload(message)
        }
    }

    private func androidPayload(_ message: Message, clientSdk: ClientSDK) -> PayloadValue {
        let content = message.content
        var notification: [(String, PayloadValue)] = []
        // A background sync is a data message: nothing of a notification reaches the app; nor
        // does a remote notification's on a legacy client when it asks to be a data message there.
        let dataOnly: Bool
        switch content.android?.v2 {
        case .backgroundSync: dataOnly = true
        case .remoteNotification(_, let useAsV1DataMessage): dataOnly = useAsV1DataMessage && clientSdk == .legacy
        case nil: dataOnly = false
        }
        if !dataOnly, let n = content.notification {
            notification.append(
                contentsOf: [("title", n.title), ("body", n.body), ("imageUrl", n.image)].compactMap { k, v in v.map { (k, .string($0)) } })
        }
        for (key, value) in dataOnly ? [] : content.android?.notification ?? [] {
            notification.removeAll { $0.0 == key }
            notification.append((key, value))
        }
        // The intent's bundle holds FCM's collapse key, which RemoteMessage.getData() leaves out
        // and getCollapseKey() returns (firebase-android-sdk, firebase-messaging/src/main/java/
        // com/google/firebase/messaging/RemoteMessage.java).
        let data = Self.withoutFCMKeys(content.android?.data ?? content.data)
        return .object(omittingNils: [
            ("from", .string(message.from)),
            ("messageId", .string(message.id)),
            ("senderId", .string(message.senderId)),
            ("collapseKey", .string(collapseKey ?? "do_not_collapse")),
            ("data", .object(data.map { ($0.0, .string($0.1)) })),
            ("notification", notification.isEmpty ? nil : .object(notification)),
            ("priority", .string(priority.rawValue)),
            ("originalPriority", .string(originalPriority.rawValue)),
            ("sentTime", .int(message.acceptedAt.millis)),
            ("ttl", .int(ttlSeconds)),
        ])
    }

    private func iosPayload(_ message: Message) -> PayloadValue {
        let content = message.content
        var aps = content.apns?.aps ?? []
        func setDefault(_ key: String, _ value: PayloadValue) {
            if !aps.contains(where: { $0.0 == key }) { aps.append((key, value)) }
        }
        if let n = content.notification, n.title != nil || n.body != nil {
            setDefault(
                "alert", .object(omittingNils: [("title", n.title.map(PayloadValue.string)), ("body", n.body.map(PayloadValue.string))]))
        }
        if content.contentAvailable { setDefault("content-available", .int(1)) }
        let image = content.apns?.image ?? content.notification?.image
        if content.mutableContent || image != nil { setDefault("mutable-content", .int(1)) }
        var userInfo: [(String, PayloadValue)] = []
        if !aps.isEmpty { userInfo.append(("aps", .object(aps))) }
        for (key, value) in content.apns?.payload ?? [] where key != "aps" { userInfo.append((key, value)) }
        for (key, value) in content.data where !userInfo.contains(where: { $0.0 == key }) {
            // userInfo is one dictionary: FCM's key takes the data key's place, or its place is empty.
            if key == "collapse_key" {
                if let collapseKey { userInfo.append((key, .string(collapseKey))) }
            } else {
                userInfo.append((key, .string(value)))
            }
        }
        if let image { userInfo.append(("fcm_options", .object([("image", .string(image))]))) }
        userInfo.append(("gcm.message_id", .string(message.id)))
        userInfo.append(("google.c.sender.id", .string(message.senderId)))
        if let topic = message.topic { userInfo.append(("from", .string("/topics/" + topic))) }
        return .object(userInfo)
    }

    /// A data key named like a parameter FCM sets on the delivered message is allowed, "in this
    /// case, the payload value will be overridden by the FCM value" (legacy HTTP reference, table 9,
    /// "Invalid Data Key"; XMPP reference, table 4): on every platform the app reads FCM's
    /// collapse key, never the sender's `collapse_key` data value (docs/legacy.md).
    static func withoutFCMKeys(_ data: StringPairs) -> StringPairs {
        data.filter { $0.0 != "collapse_key" }
    }

    /// The JSON a real web receiver decrypts from FCM (docs/receivers.md, "What a real receiver
    /// gets"): the Firebase JS SDK's `MessagePayloadInternal`
    /// (packages/messaging/src/interfaces/internal-message-payload.ts), which its service worker
    /// and firebase-messaging read: `from`, `fcmMessageId`, `priority`, `collapse_key`, `data`,
    /// `notification`, `fcmOptions`.
    package func receiverPayload(_ message: Message) -> PayloadValue {
        let content = message.content
        let data = Self.withoutFCMKeys(content.webpush?.data ?? content.data)
        return .object(omittingNils: [
            ("data", data.isEmpty ? nil : .object(data.map { ($0.0, .string($0.1)) })),
            ("from", .string(message.from)),
            ("priority", .string(priority == .high ? "high" : "normal")),
            ("notification", webNotification(content).map(PayloadValue.object)),
            ("fcmMessageId", .string(message.id)),
            ("collapse_key", collapseKey.map(PayloadValue.string)),
            ("fcmOptions", content.webpush?.link.map { .object([("link", .string($0))]) }),
        ])
    }

    private func webNotification(_ content: MessageContent) -> [(String, PayloadValue)]? {
        var notification: [(String, PayloadValue)] = []
        if let n = content.notification {
            notification.append(
                contentsOf: [("title", n.title), ("body", n.body), ("image", n.image)].compactMap { k, v in v.map { (k, .string($0)) } })
        }
        for (key, value) in content.webpush?.notification ?? [] {
            notification.removeAll { $0.0 == key }
            notification.append((key, value))
        }
        return notification.isEmpty ? nil : notification
    }

    private func webPayload(_ message: Message) -> PayloadValue {
        let content = message.content
        let notification = webNotification(content) ?? []
        let data = Self.withoutFCMKeys(content.webpush?.data ?? content.data)
        return .object(omittingNils: [
            ("from", .string(message.from)),
            ("messageId", .string(message.id)),
            ("collapseKey", collapseKey.map(PayloadValue.string)),
            ("data", data.isEmpty ? nil : .object(data.map { ($0.0, .string($0.1)) })),
            ("notification", notification.isEmpty ? nil : .object(notification)),
            ("fcmOptions", content.webpush?.link.map { .object([("link", .string($0))]) }),
        ] + Self.rawData(content.webpush?.rawData))
    }

    /// An RFC 8030 push's plaintext (docs/receivers.md, "What the device receives"): `rawData`, the
    /// text as `event.data.text()` reads it when it is UTF-8, and always `rawDataBase64`, the bytes.
    private static func rawData(_ bytes: [UInt8]?) -> [(String, PayloadValue?)] {
        guard let bytes else { return [] }
        return [
            ("rawData", String(validating: bytes, as: UTF8.self).map(PayloadValue.string)),
            ("rawDataBase64", .string(Base64URLCodec.encode(bytes))),
        ]
    }
}
