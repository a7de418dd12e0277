// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// A device's index in the emulator. Stable for the device's life; never reused.
package typealias DeviceID = Int32

/// One install of an app on one device: one registration token, one app (Android package, iOS
/// bundle id or web origin), its senders, topics and state.
///
/// Kept small on purpose: a million idle devices must fit in under 1 KiB each. Empty
/// collections cost nothing, the app id string is shared by every device that was given the same
/// one, and the store-and-forward queue exists only while something is stored.
struct Device: Sendable {
    let id: DeviceID
    let projectIndex: Int32
    let platform: Platform
    /// Android only; fits in the padding after `platform`.
    var clientSdk: ClientSDK = .current
    var name: String?
    let appId: String
    var token: String
    let fid: String
    /// Sender ids besides the project's own that may message this instance (≤ 100 in all).
    var extraSenders: [String] = []
    /// Subscribed topics and when each subscription was made (IID `addDate`).
    var topics: [String: Instant] = [:]
    var state: DeviceState
    /// False once FCM has invalidated the token (uninstall noticed, or the device deleted).
    var tokenValid = true
    let createdAt: Instant
    /// When the device last had a connection; "now" while it is connected.
    var lastConnectedAt: Instant
    /// When FCM last saw the app instance: connected, or refreshing its token (which the app does
    /// over its connection). An Android token unseen for `staleTokenDays` is expired (World+Send).
    var lastSeenAt: Instant
    /// When the last data message was discarded because the device had been away too long (docs/simulation.md, "Long absence").
    var lastInactiveDiscardAt: Instant?
    /// A deleted-messages signal is owed on the next connection ("The 100-message cap", "Long absence").
    var deletedSignalOwed = false
    var store: PendingStore?
    var inbox: Deque<Delivery> = []
    /// How many deliveries ever left the front of `inbox`: the place of `inbox[0]` among all the
    /// device's deliveries, which `InboxLedger` names them by (wrapping).
    var inboxBase: UInt32 = 0
    /// What the user sees in the notification tray (`NotificationTray`, at most 50).
    var tray: [TrayEntry] = []
    /// High-priority data messages delivered in the background since a notification was last
    /// shown (`EmulatorSettings.deprioritizeAfter`).
    var unshownHighPriority: Int32 = 0
    /// Incremented on every state change, so that timers of an earlier Doze stretch are ignored.
    var stateGeneration: UInt32 = 0
    /// A web device's Web Push subscription (docs/receivers.md); nil on every other platform.
    var webPush: WebPushSubscription?
    /// A real receiver's link (docs/receivers.md, "Real receivers"): its check-in and keys; nil
    /// for every simulated device.
    var receiver: ReceiverLink?
}

extension Device {
    /// Hands the device to `read` where it lies. Called through the array's optional
    /// (`devices[i]?.peek { … }`), a mutating call reaches the element in place; reading
    /// `devices[i]?.field` copies the whole device out first (Array's getter returns an owned
    /// element), retaining each of its fields, and a send read a dozen fields that way.
    mutating func peek<R>(_ read: (borrowing Device) -> R) -> R { read(self) }

    /// One more high-priority data message that showed no notification (`EmulatorSettings.deprioritizeAfter`).
    mutating func countUnshownHighPriority() {
        if unshownHighPriority < Int32.max { unshownHighPriority += 1 }
    }

    /// What the device's topic names add to an answer that lists them (each quoted and indented).
    var topicBytes: Int { topics.keys.reduce(0) { $0 + $1.utf8.count + 8 } }
}

/// A message waiting for a device.
struct PendingMessage: Sendable {
    let message: Message
    let profile: DeliveryProfile
    /// Unique per stored copy, so that an expiry timer finds exactly the copy it was set for.
    let storeSequence: UInt64
    /// Not deliverable before this instant (configured per-priority latency).
    let availableAt: Instant
    /// Dropped at this instant; nil for TTL 0 copies that only wait out a latency.
    let expiresAt: Instant?
}

/// What store-and-forward does with a message that arrives for a device that cannot take it.
enum StoreResult {
    case stored
    /// Replaced a stored message with the same collapse key.
    case collapsed(replaced: PendingMessage)
    /// Stored, and a message under another collapse key was evicted to keep to the key limit.
    case evicted(PendingMessage)
    /// The non-collapsible cap was passed: these were all discarded, and the new one stored.
    case overflowed(discarded: [PendingMessage])
}

/// The messages stored for one device, in acceptance order (docs/simulation.md, "Store and forward").
struct PendingStore: Sendable {
    private(set) var items: [PendingMessage] = []

    var isEmpty: Bool { items.isEmpty }

    var nonCollapsibleCount: Int { items.lazy.filter { !$0.profile.isCollapsible }.count }

    /// Stores `pending` under the rules of docs/simulation.md's "Collapse keys" and "The 100-message cap".
    /// - Parameter evictionIndex: picks which collapse key goes when a new key passes the limit,
    ///   given how many keys there are (0 = oldest).
    mutating func store(
        _ pending: PendingMessage, maxCollapseKeys: Int, maxNonCollapsible: Int, evictionIndex: (Int) -> Int
    ) -> StoreResult {
        if let key = pending.profile.collapseKey {
            if let index = items.firstIndex(where: { $0.profile.collapseKey == key }) {
                let replaced = items.remove(at: index)
                items.append(pending)
                return .collapsed(replaced: replaced)
            }
            var keyed = items.indices.filter { items[$0].profile.collapseKey != nil }
            if keyed.count >= maxCollapseKeys {
                let victim = items.remove(at: keyed[min(max(0, evictionIndex(keyed.count)), keyed.count - 1)])
                keyed.removeAll()
                items.append(pending)
                return .evicted(victim)
            }
            items.append(pending)
            return .stored
        }
        if nonCollapsibleCount >= maxNonCollapsible {
            let discarded = items
            items = [pending]
            return .overflowed(discarded: discarded)
        }
        items.append(pending)
        return .stored
    }

    /// Removes and returns the stored copy with this sequence number.
    mutating func remove(storeSequence: UInt64) -> PendingMessage? {
        guard let index = items.firstIndex(where: { $0.storeSequence == storeSequence }) else { return nil }
        return items.remove(at: index)
    }

    /// Removes and returns, in order, the messages that `canTake` accepts.
    mutating func takeAll(where canTake: (PendingMessage) -> Bool) -> [PendingMessage] {
        var taken: [PendingMessage] = []
        var kept: [PendingMessage] = []
        for item in items {
            if canTake(item) { taken.append(item) } else { kept.append(item) }
        }
        items = kept
        return taken
    }

    /// Appends a stored copy as a snapshot lists it (acceptance order), with no store rules.
    mutating func restore(_ pending: PendingMessage) { items.append(pending) }

    mutating func removeAll() -> [PendingMessage] {
        defer { items = [] }
        return items
    }
}
