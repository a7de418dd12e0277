// SPDX-License-Identifier: Apache-2.0

extension World {
    /// How a device in `state` would take a message now, or nil if it cannot (docs/simulation.md,
    /// "Device states" and the rendering rows). `maintenance` is true during a Doze maintenance window.
    static func handling(for profile: DeliveryProfile, platform: Platform, state: DeviceState, maintenance: Bool) -> Delivery.Handling? {
        switch state {
        case .foreground:
            return .app
        case .background:
            return backgroundHandling(profile, platform: platform)
        case .doze:
            // High priority wakes the device; normal waits for a maintenance window or the end of Doze.
            guard profile.priority == .high || maintenance else { return nil }
            return backgroundHandling(profile, platform: platform)
        case .offline, .uninstalled:
            return nil
        }
    }

    private static func backgroundHandling(_ profile: DeliveryProfile, platform: Platform) -> Delivery.Handling? {
        if profile.isNotification { return .tray }
        // iOS: data messages are held until the app is in the foreground, unless content-available
        // sends them through APNs as a silent push.
        if platform == .ios { return profile.contentAvailable ? .silent : nil }
        return .app
    }

    /// Routes one accepted message to one device.
    mutating func dispatch(_ message: Message, to id: DeviceID) {
        // Read the few fields needed in place (`Device.peek`), not the device: a copy retains
        // every field, and a live one would make the inbox append in `record` copy the whole inbox.
        guard
            let (platform, appId, state, lastConnectedAt, sdk, unshown) = devices[Int(id)]?.peek({
                ($0.platform, $0.appId, $0.state, $0.lastConnectedAt, $0.clientSdk, $0.unshownHighPriority)
            })
        else { return }
        var profile = DeliveryProfile(message.content, platform: platform, appId: appId, now: now, clientSdk: sdk)
        if platform == .android, profile.priority == .high, !profile.isNotification, settings.deprioritizeAfter > 0,
            unshown >= settings.deprioritizeAfter
        {
            // "If FCM detects a pattern in which messages do not result in user-facing
            // notifications, your messages may be deprioritized to normal priority"
            // (https://firebase.google.com/docs/cloud-messaging/android/message-priority). The app
            // sees it: RemoteMessage.getPriority() is normal, getOriginalPriority() high.
            profile.priority = .normal
        }
        if state == .uninstalled {
            // Rule 6: the delivery attempt finds the app gone.
            log(.discarded, device: id, message: message, detail: "uninstalled")
            invalidateToken(id)
            return
        }
        if state == .offline, now.millis(since: lastConnectedAt) > settings.inactiveAfterSeconds * 1000 {
            // Rule 5: away for more than a month; accepted, then dropped at once. Only a dropped
            // data message arms the deleted-messages signal ("the last data message", 002).
            if !profile.isNotification { devices[Int(id)]?.lastInactiveDiscardAt = now }
            log(.discarded, device: id, message: message, detail: "inactive")
            return
        }
        let latency = profile.priority == .high ? settings.highPriorityLatencyMillis : settings.normalPriorityLatencyMillis
        let handling = Self.handling(for: profile, platform: platform, state: state, maintenance: false)
        if latency <= 0, let handling {
            deliver(message, profile: profile, to: id, handling: handling)
            return
        }
        if profile.ttlSeconds == 0, latency <= 0 {
            // Rule 2: TTL 0 is "now or never"; never stored.
            log(.discarded, device: id, message: message, detail: "ttl-zero")
            return
        }
        let availableAt = now.adding(millis: max(0, latency))
        let pending = PendingMessage(
            message: message, profile: profile, storeSequence: nextSequence(), availableAt: availableAt,
            expiresAt: profile.ttlSeconds == 0 ? availableAt : now.adding(seconds: profile.ttlSeconds)
        )
        store(pending, for: id, reason: handling == nil ? state.rawValue : "latency")
        if latency > 0 { timers.schedule(.retryDelivery(device: id), at: availableAt) }
    }

    private mutating func store(_ pending: PendingMessage, for id: DeviceID, reason: String) {
        var store = devices[Int(id)]?.store ?? PendingStore()
        let random = settings.randomEviction
        var rng = ids.random
        let result = store.store(
            pending, maxCollapseKeys: settings.maxCollapseKeys, maxNonCollapsible: settings.maxStoredMessages,
            evictionIndex: { count in random ? Int(rng.next() % UInt64(count)) : 0 }
        )
        ids.random = rng
        devices[Int(id)]?.store = store
        switch result {
        case .stored:
            break
        case .collapsed(let replaced):
            log(.collapsed, device: id, message: replaced.message, related: pending.message, detail: pending.profile.visibleCollapseKey)
        case .evicted(let victim):
            log(.evicted, device: id, message: victim.message, related: pending.message, detail: victim.profile.visibleCollapseKey)
        case .overflowed(let discarded):
            // Rule 4: past 100 stored non-collapsible messages, all are dropped and the device is
            // told so on its next connection.
            for item in discarded { log(.discarded, device: id, message: item.message, detail: "overflow") }
            devices[Int(id)]?.deletedSignalOwed = true
        }
        log(.stored, device: id, message: pending.message, detail: reason)
        if let expiresAt = pending.expiresAt {
            timers.schedule(.expire(device: id, storeSequence: pending.storeSequence), at: expiresAt)
        }
    }

    /// Hands over what a device can take now: first an owed deleted-messages signal, then stored
    /// messages in acceptance order (or shuffled, when configured: FCM does not promise an order).
    mutating func flush(device id: DeviceID, maintenance: Bool) {
        guard let (platform, state, signalOwed) = devices[Int(id)].map({ ($0.platform, $0.state, $0.deletedSignalOwed) }),
            state.isConnected
        else { return }
        let awake = state != .doze || maintenance
        if signalOwed, awake {
            devices[Int(id)]?.deletedSignalOwed = false
            let signal = Delivery(
                kind: .deletedMessages, message: nil, time: now, handling: .app, appState: state,
                priority: .high, originalPriority: .high, ttlSeconds: 0, collapseKey: nil
            )
            record(signal, for: id)
            log(.deletedMessagesSignalled, device: id)
        }
        guard var store = devices[Int(id)]?.store, !store.isEmpty else { return }
        devices[Int(id)]?.store = nil
        let now = self.now
        var taken = store.takeAll { pending in
            pending.availableAt <= now
                && Self.handling(for: pending.profile, platform: platform, state: state, maintenance: maintenance) != nil
        }
        devices[Int(id)]?.store = store.isEmpty ? nil : store
        if settings.shuffleDelivery { taken.shuffle(using: &ids.random) }
        for pending in taken {
            let handling = Self.handling(for: pending.profile, platform: platform, state: state, maintenance: maintenance) ?? .app
            deliver(pending.message, profile: pending.profile, to: id, handling: handling)
        }
    }

    private mutating func deliver(_ message: Message, profile: DeliveryProfile, to id: DeviceID, handling: Delivery.Handling) {
        guard let (state, platform) = devices[Int(id)]?.peek({ ($0.state, $0.platform) }) else { return }
        let delivery = Delivery(
            kind: .message, message: message, time: now, handling: handling, appState: state,
            priority: profile.priority, originalPriority: profile.originalPriority,
            ttlSeconds: profile.ttlSeconds, collapseKey: profile.visibleCollapseKey
        )
        record(delivery, for: id)
        log(.delivered, device: id, message: message, detail: handling.rawValue)
        if handling == .tray {
            showInTray(TrayEntry(delivery: delivery, tag: NotificationTray.tag(of: message.content, platform: platform)), on: id)
        } else if profile.priority == .high, !profile.isNotification, state == .background || state == .doze, platform == .android {
            // A high-priority data message handed to an app the user is not looking at, with no
            // notification shown (yet): one more toward deprioritization.
            devices[Int(id)]?.countUnshownHighPriority()
        }
        if message.api == .xmpp, let device = devices[Int(id)] { queueReceipt(for: message, device: device) }
    }

    private mutating func record(_ delivery: Delivery, for id: DeviceID) {
        keepInInbox(delivery, for: id)
        if let link = devices[Int(id)]?.peek({ $0.receiver }) { oweToReceiver(delivery, device: id, link: link) }
    }

    /// Shows a notification in the device's tray (`NotificationTray`); a shown notification
    /// also clears the count of high-priority messages that showed none.
    mutating func showInTray(_ entry: TrayEntry, on id: DeviceID) {
        guard var device = devices[Int(id)] else { return }
        devices[Int(id)] = nil  // keep the tray uniquely referenced while it changes
        if case .refused = NotificationTray.post(entry, into: &device.tray, platform: device.platform) {
            devices[Int(id)] = device
            return
        }
        device.unshownHighPriority = 0
        devices[Int(id)] = device
    }

    mutating func expireStored(device id: DeviceID, storeSequence: UInt64) {
        guard var store = devices[Int(id)]?.store, let pending = store.remove(storeSequence: storeSequence) else { return }
        devices[Int(id)]?.store = store.isEmpty ? nil : store
        if pending.profile.ttlSeconds == 0 {
            log(.discarded, device: id, message: pending.message, detail: "ttl-zero")
        } else {
            log(.expired, device: id, message: pending.message)
        }
    }

    mutating func scheduleMaintenance(_ id: DeviceID) {
        guard settings.dozeMaintenanceIntervalSeconds > 0, let device = devices[Int(id)] else { return }
        timers.schedule(
            .dozeMaintenance(device: id, generation: device.stateGeneration),
            at: now.adding(seconds: settings.dozeMaintenanceIntervalSeconds)
        )
    }

    mutating func dozeMaintenance(device id: DeviceID, generation: UInt32) {
        guard devices[Int(id)]?.state == .doze, devices[Int(id)]?.stateGeneration == generation else { return }
        flush(device: id, maintenance: true)
        scheduleMaintenance(id)
    }

    /// Drops everything stored for an uninstalled app: the delivery attempt finds the app gone,
    /// and that is when FCM learns that the token is dead (docs/simulation.md, "Uninstall";
    /// https://firebase.google.com/docs/cloud-messaging/customize-messages/setting-message-lifespan).
    mutating func discardStoreOfUninstalledApp(_ id: DeviceID) {
        guard var store = devices[Int(id)]?.store else { return }
        let dropped = store.removeAll()
        devices[Int(id)]?.store = nil
        for pending in dropped { log(.discarded, device: id, message: pending.message, detail: DeviceState.uninstalled.rawValue) }
        if !dropped.isEmpty { invalidateToken(id) }
    }
}
