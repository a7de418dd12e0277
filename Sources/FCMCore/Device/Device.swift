// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// A device's index in the emulator. Stable for the device's life; never reused.
package typealias DeviceID = Int32

/// One install of an app on one device: one registration token, one app (Android package, iOS
/// bundle id or web origin), its senders, topics and state.
///
/// Kept small on purpose: a million idle devices must fit in 256 bytes each. Empty collections
/// cost nothing, the app id string is shared by every device that was given the same one, the
/// store-and-forward queue exists only while something is stored, and the token and FID the
/// emulator made are derived from the index, not kept (`DeviceIdentities`).
struct Device: Sendable {
    // Stored in an order that leaves no padding: an idle device is 104 bytes here.
    let id: DeviceID
    let projectIndex: Int32
    let platform: Platform
    /// Android only.
    var clientSdk: ClientSDK = .current
    var state: DeviceState
    /// False once FCM has invalidated the token (uninstall noticed, or the device deleted).
    var tokenValid = true
    /// Whether the token, or the FID, was given rather than derived: kept in `DeviceIdentities`.
    var givenToken = false
    var givenFid = false
    /// Which token of the device's derived ones is current (`DeviceIdentities`).
    var tokenGeneration: UInt32 = 0
    /// How many deliveries ever left the front of `inbox`: the place of `inbox[0]` among all the
    /// device's deliveries, which `InboxLedger` names them by (wrapping).
    var inboxBase: UInt32 = 0
    /// High-priority data messages delivered in the background since a notification was last
    /// shown (`EmulatorSettings.deprioritizeAfter`).
    var unshownHighPriority: Int32 = 0
    /// Incremented on every state change, so that timers of an earlier Doze stretch are ignored.
    var stateGeneration: UInt32 = 0
    let appId: String
    /// Subscribed topics and when each subscription was made (IID `addDate`).
    var topics: [String: Instant] = [:]
    let createdAt: Instant
    /// When the device last had a connection; "now" while it is connected.
    var lastConnectedAt: Instant
    /// When FCM last saw the app instance: connected, or refreshing its token (which the app does
    /// over its connection). An Android token unseen for `staleTokenDays` is expired (World+Send).
    var lastSeenAt: Instant
    var store: PendingStore?
    var inbox: Deque<Delivery> = []
    /// What most devices leave at its defaults, out of line: an empty array is one word, so an
    /// idle device does not carry the 60 bytes of these fields. Never more than one element.
    private var seldom: [Seldom] = []

    init(
        id: DeviceID, projectIndex: Int32, platform: Platform, name: String?, appId: String, state: DeviceState, createdAt: Instant,
        lastConnectedAt: Instant, lastSeenAt: Instant
    ) {
        self.id = id
        self.projectIndex = projectIndex
        self.platform = platform
        self.appId = appId
        self.state = state
        self.createdAt = createdAt
        self.lastConnectedAt = lastConnectedAt
        self.lastSeenAt = lastSeenAt
        self.name = name
    }

    /// The fields `seldom` holds.
    struct Seldom: Sendable {
        var name: String?
        var extraSenders: [String] = []
        var lastInactiveDiscardAt: Instant?
        var deletedSignalOwed = false
        var tray: [TrayEntry] = []
        var webPush: WebPushSubscription?
        var receiver: ReceiverLink?
    }

    /// Sets a seldom field; a default value on a device without any keeps it without.
    private mutating func setSeldom<Value>(_ field: WritableKeyPath<Seldom, Value>, _ value: Value, isDefault: Bool) {
        if seldom.isEmpty {
            guard !isDefault else { return }
            seldom.append(Seldom())
        }
        seldom[0][keyPath: field] = value
    }

    var name: String? {
        get { seldom.first?.name }
        set { setSeldom(\.name, newValue, isDefault: newValue == nil) }
    }
    /// Sender ids besides the project's own that may message this instance (≤ 100 in all).
    var extraSenders: [String] {
        get { seldom.first?.extraSenders ?? [] }
        set { setSeldom(\.extraSenders, newValue, isDefault: newValue.isEmpty) }
    }
    /// When the last data message was discarded because the device had been away too long (docs/simulation.md, "Long absence").
    var lastInactiveDiscardAt: Instant? {
        get { seldom.first?.lastInactiveDiscardAt }
        set { setSeldom(\.lastInactiveDiscardAt, newValue, isDefault: newValue == nil) }
    }
    /// A deleted-messages signal is owed on the next connection ("The 100-message cap", "Long absence").
    var deletedSignalOwed: Bool {
        get { seldom.first?.deletedSignalOwed ?? false }
        set { setSeldom(\.deletedSignalOwed, newValue, isDefault: !newValue) }
    }
    /// What the user sees in the notification tray (`NotificationTray`, at most 50).
    var tray: [TrayEntry] {
        get { seldom.first?.tray ?? [] }
        set { setSeldom(\.tray, newValue, isDefault: newValue.isEmpty) }
        // Posting changes the tray where it lies, not a copy of it.
        _modify {
            if seldom.isEmpty { seldom.append(Seldom()) }
            yield &seldom[0].tray
        }
    }
    /// A web device's Web Push subscription (docs/receivers.md); nil on every other platform.
    var webPush: WebPushSubscription? {
        get { seldom.first?.webPush }
        set { setSeldom(\.webPush, newValue, isDefault: newValue == nil) }
    }
    /// A real receiver's link (docs/receivers.md, "Real receivers"): its check-in and keys; nil
    /// for every simulated device.
    var receiver: ReceiverLink? {
        get { seldom.first?.receiver }
        set { setSeldom(\.receiver, newValue, isDefault: newValue == nil) }
    }
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
