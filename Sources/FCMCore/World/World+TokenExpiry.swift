// SPDX-License-Identifier: Apache-2.0

extension World {
    /// Whether an app instance's token has expired for inactivity: "For Android, when stale tokens
    /// reach 270 days of inactivity, FCM considers them expired ... marks it as invalid and rejects
    /// sends to it", answered `UNREGISTERED` (https://firebase.google.com/docs/cloud-messaging/manage-tokens).
    /// iOS and web rely on their push services, which have no such expiry. "Seen" is being
    /// connected or refreshing the token (`Device.lastSeenAt`); a connected app is seen now. When
    /// the app connects again it is issued a new token (`setState`). `staleTokenDays=0` turns it off.
    func isExpired(_ device: Device) -> Bool {
        device.isExpired(now: now, staleTokenDays: settings.staleTokenDays)
    }

    /// Whether device `id` exists and its token has expired (`isExpired(_:)`), read in place
    /// (`Device.peek`): a fan-out asks it of every recipient, and a copy of each device retained
    /// all its fields.
    mutating func isExpired(_ id: DeviceID) -> Bool? {
        let (now, days) = (now, settings.staleTokenDays)
        return devices[Int(id)]?.peek { $0.isExpired(now: now, staleTokenDays: days) }
    }
}

extension Device {
    func isExpired(now: Instant, staleTokenDays: Int) -> Bool {
        let days = Int64(staleTokenDays)
        guard days > 0, platform == .android, !state.isConnected else { return false }
        return now.millis(since: lastSeenAt) >= days * 86_400_000
    }
}
