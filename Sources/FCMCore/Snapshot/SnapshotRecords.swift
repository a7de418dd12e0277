// SPDX-License-Identifier: Apache-2.0

/// The world as plain records: what `WorldImage` hands an encoder and what `WorldBuilder` takes
/// back. The core knows no file format (Sources/README.md); a snapshot layer writes these as it
/// likes, and the records name the world's parts the way the snapshot format does.
package enum SnapshotRecord {
    /// One stored copy of a message waiting for a device (docs/simulation.md, "Store and forward").
    package struct Stored: Sendable {
        package var message: Message
        package var storeSequence: UInt64
        package var availableAt: Instant
        package var expiresAt: Instant?
        package var profile: Profile

        package init(message: Message, storeSequence: UInt64, availableAt: Instant, expiresAt: Instant?, profile: Profile) {
            self.message = message
            self.storeSequence = storeSequence
            self.availableAt = availableAt
            self.expiresAt = expiresAt
            self.profile = profile
        }
    }

    /// A device's stored copies in acceptance order, held the way the world holds them: an import
    /// hands them to the world and an export reads them from it without a copy of each list
    /// (a million devices storing ten copies each).
    package struct StoredList: Sendable, RandomAccessCollection {
        var store: PendingStore

        init(store: PendingStore) { self.store = store }

        package init() { store = PendingStore() }

        package init(_ items: some Sequence<Stored>) {
            var list = Builder()
            for item in items { list.append(item) }
            self = list.finish()
        }

        /// Makes one device's list after another's, each with room for as many copies as the
        /// one before had: devices mostly store alike, so each list is made at its exact size
        /// without a copy, where appends alone would leave it up to twice as big (an import
        /// makes a million of them).
        package struct Builder: Sendable {
            private var items: [PendingMessage] = []
            private var expected = 0

            package init() {}

            package mutating func append(_ s: Stored) {
                if items.capacity == 0 { items.reserveCapacity(expected) }
                items.append(
                    PendingMessage(
                        message: s.message, profile: DeliveryProfile(s.profile), storeSequence: s.storeSequence,
                        availableAt: s.availableAt, expiresAt: s.expiresAt))
            }

            /// Forgets what was appended (a line that turned out not to be in the expected shape).
            package mutating func removeAll() { items = [] }

            /// The list of what was appended since the last call; the builder starts over, empty.
            package mutating func finish() -> StoredList {
                var list: [PendingMessage] = []
                swap(&list, &items)
                // A hint only, and a small one: one peer-made line storing millions must not
                // make every later list that big.
                expected = Swift.min(list.count, 256)
                return StoredList(store: PendingStore(items: list))
            }
        }

        /// Appends a copy after those already listed (no store rules apply: the list is a record).
        package mutating func append(_ s: Stored) {
            store.restore(
                PendingMessage(
                    message: s.message, profile: DeliveryProfile(s.profile), storeSequence: s.storeSequence, availableAt: s.availableAt,
                    expiresAt: s.expiresAt))
        }

        package var startIndex: Int { 0 }
        package var endIndex: Int { store.items.count }

        package subscript(position: Int) -> Stored {
            let p = store.items[position]
            return Stored(
                message: p.message, storeSequence: p.storeSequence, availableAt: p.availableAt, expiresAt: p.expiresAt,
                profile: p.profile.record)
        }
    }

    /// How the stored copy behaves on its device's platform, as decided when it was accepted
    /// (it depends on the clock then, e.g. `apns-expiration`, so it is kept, not recomputed).
    package struct Profile: Sendable, Hashable {
        package var isNotification: Bool
        package var contentAvailable: Bool
        package var priority: Priority
        package var originalPriority: Priority
        package var ttlSeconds: Int64
        package var collapseKey: String?

        package init(
            isNotification: Bool, contentAvailable: Bool, priority: Priority, originalPriority: Priority, ttlSeconds: Int64,
            collapseKey: String?
        ) {
            self.isNotification = isNotification
            self.contentAvailable = contentAvailable
            self.priority = priority
            self.originalPriority = originalPriority
            self.ttlSeconds = ttlSeconds
            self.collapseKey = collapseKey
        }
    }

    /// A live device, with everything behaviour depends on.
    package struct Device: Sendable {
        package var id: DeviceID
        package var projectIndex: Int32
        package var platform: Platform
        package var name: String?
        package var appId: String
        package var token: String
        package var tokenValid: Bool
        package var fid: String
        package var state: DeviceState
        package var extraSenders: [String]
        /// Topics and when each was subscribed, sorted by name.
        package var topics: [(String, Instant)]
        package var createdAt: Instant
        package var lastConnectedAt: Instant
        package var lastInactiveDiscardAt: Instant?
        /// When FCM last saw the app (token expiry); nil in snapshots older than the field.
        package var lastSeenAt: Instant?
        package var deletedSignalOwed: Bool
        package var stateGeneration: UInt32
        package var stored: StoredList
        /// What the app received; nil when inboxes are not part of the snapshot.
        package var inbox: [Delivery]?
        /// What the user sees in the notification tray (at most `NotificationTray.capacity`).
        package var tray: [TrayEntry] = []
        /// High-priority data messages since a notification was last shown (deprioritization).
        package var unshownHighPriority: Int32 = 0
        /// A web device's Web Push subscription, its keys checked when read (docs/receivers.md).
        package var webPush: WebPushSubscription?
        /// Android: the client SDK the app was built with; `current` in snapshots without it.
        package var clientSdk: ClientSDK = .current

        package init(
            id: DeviceID, projectIndex: Int32, platform: Platform, name: String?, appId: String, token: String, tokenValid: Bool,
            fid: String, state: DeviceState, extraSenders: [String], topics: [(String, Instant)], createdAt: Instant,
            lastConnectedAt: Instant, lastInactiveDiscardAt: Instant?, deletedSignalOwed: Bool, stateGeneration: UInt32,
            stored: StoredList, inbox: [Delivery]?, lastSeenAt: Instant? = nil
        ) {
            self.lastSeenAt = lastSeenAt
            self.id = id
            self.projectIndex = projectIndex
            self.platform = platform
            self.name = name
            self.appId = appId
            self.token = token
            self.tokenValid = tokenValid
            self.fid = fid
            self.state = state
            self.extraSenders = extraSenders
            self.topics = topics
            self.createdAt = createdAt
            self.lastConnectedAt = lastConnectedAt
            self.lastInactiveDiscardAt = lastInactiveDiscardAt
            self.deletedSignalOwed = deletedSignalOwed
            self.stateGeneration = stateGeneration
            self.stored = stored
            self.inbox = inbox
        }
    }

    /// A token that no longer names a device directly (refreshed: docs/simulation.md, "Tokens"; or unregistered).
    package struct RetiredToken: Sendable {
        package var token: String
        package var device: DeviceID
        package var canonicalUntil: Instant?

        package init(token: String, device: DeviceID, canonicalUntil: Instant?) {
            self.token = token
            self.device = device
            self.canonicalUntil = canonicalUntil
        }
    }

    /// A topic's subscribers in fan-out order.
    package struct Topic: Sendable {
        package var projectIndex: Int32
        package var name: String
        package var devices: [DeviceID]

        package init(projectIndex: Int32, name: String, devices: [DeviceID]) {
            self.projectIndex = projectIndex
            self.name = name
            self.devices = devices
        }
    }

    /// A pending timer, with the sequence that orders timers due at the same instant.
    package struct Timer: Sendable, Equatable {
        public enum Action: Sendable, Equatable {
            case expire(device: DeviceID, storeSequence: UInt64)
            case dozeMaintenance(device: DeviceID, generation: UInt32)
            case retryDelivery(device: DeviceID)

            package var device: DeviceID {
                switch self {
                case .expire(let d, _), .dozeMaintenance(let d, _), .retryDelivery(let d): return d
                }
            }
        }

        package var deadline: Instant
        package var sequence: UInt64
        package var action: Action

        package init(deadline: Instant, sequence: UInt64, action: Action) {
            self.deadline = deadline
            self.sequence = sequence
            self.action = action
        }
    }

    /// A topic or condition message still reaching its recipients.
    package struct FanOut: Sendable {
        package var message: Message
        package var recipients: [DeviceID]
        package var restricted: String?
        package var next: Int

        package init(message: Message, recipients: [DeviceID], restricted: String?, next: Int) {
            self.message = message
            self.recipients = recipients
            self.restricted = restricted
            self.next = next
        }
    }

    /// Counters and generator state: what makes the next id, token and sequence number the ones
    /// the original would have made.
    package struct Counters: Sendable, Equatable {
        package var randomState: UInt64
        package var microCounter: UInt64
        package var nextStoreSequence: UInt64
        package var nextTimerSequence: UInt64
        package var nextEventSequence: Int
        package var nextCCSConnection: Int

        package init(
            randomState: UInt64, microCounter: UInt64, nextStoreSequence: UInt64, nextTimerSequence: UInt64, nextEventSequence: Int,
            nextCCSConnection: Int
        ) {
            self.randomState = randomState
            self.microCounter = microCounter
            self.nextStoreSequence = nextStoreSequence
            self.nextTimerSequence = nextTimerSequence
            self.nextEventSequence = nextEventSequence
            self.nextCCSConnection = nextCCSConnection
        }
    }

    /// A fixed-window counter of the optional rate limits, by its key (`device:…`, `topic:…`).
    package struct RateWindow: Sendable, Equatable {
        package var key: String
        package var start: Instant
        package var count: Int

        package init(key: String, start: Instant, count: Int) {
            self.key = key
            self.start = start
            self.count = count
        }
    }

    /// The fault rules and how often each matched and fired.
    package struct Faults: Sendable, Equatable {
        package var rules: [FaultRule]
        package var matched: [String: Int]
        package var fired: [String: Int]

        package init(rules: [FaultRule], matched: [String: Int], fired: [String: Int]) {
            self.rules = rules
            self.matched = matched
            self.fired = fired
        }
    }

    /// What CCS owes one project's app server, in the order it will be sent.
    package struct CCSQueue: Sendable, Equatable {
        package var projectId: String
        package var items: [CCSItem]
        package var drainRequests: Int

        package init(projectId: String, items: [CCSItem], drainRequests: Int) {
            self.projectId = projectId
            self.items = items
            self.drainRequests = drainRequests
        }
    }
}

// MARK: - Restoring values the core otherwise makes itself

extension Message {
    /// A message as a snapshot recorded it.
    package static func restored(
        id: String, projectId: String, senderId: String, target: MessageTarget, content: MessageContent, api: SourceAPI,
        acceptedAt: Instant, retry: RetryMark? = nil
    ) -> Message {
        Message(
            id: id, projectId: projectId, senderId: senderId, target: target, content: content, api: api, acceptedAt: acceptedAt,
            retry: retry)
    }
}

extension Event {
    /// An event as a snapshot recorded it.
    package init(
        restoring sequence: Int, time: Instant, kind: Kind, device: DeviceID?, message: Message?, related: Message?, detail: String?,
        call: EventCall? = nil
    ) {
        self.init(
            sequence: sequence, time: time, kind: kind, device: device, message: message, related: related, detail: detail, call: call)
    }
}

extension Delivery {
    /// A delivery as a snapshot recorded it.
    package init(
        restoring kind: Kind, message: Message?, time: Instant, handling: Handling, appState: DeviceState, priority: Priority,
        originalPriority: Priority, ttlSeconds: Int64, collapseKey: String?
    ) {
        self.init(
            kind: kind, message: message, time: time, handling: handling, appState: appState, priority: priority,
            originalPriority: originalPriority, ttlSeconds: ttlSeconds, collapseKey: collapseKey)
    }
}

extension DeliveryProfile {
    init(_ record: SnapshotRecord.Profile) {
        isNotification = record.isNotification
        contentAvailable = record.contentAvailable
        priority = record.priority
        originalPriority = record.originalPriority
        ttlSeconds = record.ttlSeconds
        collapseKey = record.collapseKey
    }

    var record: SnapshotRecord.Profile {
        SnapshotRecord.Profile(
            isNotification: isNotification, contentAvailable: contentAvailable, priority: priority, originalPriority: originalPriority,
            ttlSeconds: ttlSeconds, collapseKey: collapseKey)
    }
}

extension DeviceGroup {
    /// A device group as a snapshot recorded it.
    package init(restoring name: String, notificationKey: String, tokens: [String], createdAt: Instant) {
        self.init(name: name, notificationKey: notificationKey, tokens: tokens, createdAt: createdAt)
    }
}
