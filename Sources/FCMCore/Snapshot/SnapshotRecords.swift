// SPDX-License-Identifier: Apache-2.0

/// The world as plain records: what `WorldImage` hands an encoder and what `WorldBuilder` takes
/// back. The core knows no file format (Sources/README.md); a snapshot layer writes these as it
/// likes, and the records name the world's parts the way the snapshot format does.
public enum SnapshotRecord {
    /// One stored copy of a message waiting for a device (docs/simulation.md, "Store and forward").
    public struct Stored: Sendable {
        public var message: Message
        public var storeSequence: UInt64
        public var availableAt: Instant
        public var expiresAt: Instant?
        public var profile: Profile

        public init(message: Message, storeSequence: UInt64, availableAt: Instant, expiresAt: Instant?, profile: Profile) {
            self.message = message
            self.storeSequence = storeSequence
            self.availableAt = availableAt
            self.expiresAt = expiresAt
            self.profile = profile
        }
    }

    /// A device's stored copies in acceptance order, held the way the world holds them: an import
    /// hands them to the world and an export reads them from it without a copy of each list
    /// (a million devices storing ten copies each, issue 14).
    public struct StoredList: Sendable, RandomAccessCollection {
        var store: PendingStore

        init(store: PendingStore) { self.store = store }

        public init() { store = PendingStore() }

        public init(_ items: some Sequence<Stored>) {
            var list = Builder()
            for item in items { list.append(item) }
            self = list.finish()
        }

        /// Makes one device's list after another's, each with room for as many copies as the
        /// one before had: devices mostly store alike, so each list is made at its exact size
        /// without a copy, where appends alone would leave it up to twice as big (an import
        /// makes a million of them).
        public struct Builder: Sendable {
            private var items: [PendingMessage] = []
            private var expected = 0

            public init() {}

            public mutating func append(_ s: Stored) {
                if items.capacity == 0 { items.reserveCapacity(expected) }
                items.append(
                    PendingMessage(
                        message: s.message, profile: DeliveryProfile(s.profile), storeSequence: s.storeSequence,
                        availableAt: s.availableAt, expiresAt: s.expiresAt))
            }

            /// Forgets what was appended (a line that turned out not to be in the expected shape).
            public mutating func removeAll() { items = [] }

            /// The list of what was appended since the last call; the builder starts over, empty.
            public mutating func finish() -> StoredList {
                var list: [PendingMessage] = []
                swap(&list, &items)
                // A hint only, and a small one: one peer-made line storing millions must not
                // make every later list that big.
                expected = Swift.min(list.count, 256)
                return StoredList(store: PendingStore(items: list))
            }
        }

        /// Appends a copy after those already listed (no store rules apply: the list is a record).
        public mutating func append(_ s: Stored) {
            store.restore(
                PendingMessage(
                    message: s.message, profile: DeliveryProfile(s.profile), storeSequence: s.storeSequence, availableAt: s.availableAt,
                    expiresAt: s.expiresAt))
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { store.items.count }

        public subscript(position: Int) -> Stored {
            let p = store.items[position]
            return Stored(
                message: p.message, storeSequence: p.storeSequence, availableAt: p.availableAt, expiresAt: p.expiresAt,
                profile: p.profile.record)
        }
    }

    /// How the stored copy behaves on its device's platform, as decided when it was accepted
    /// (it depends on the clock then, e.g. `apns-expiration`, so it is kept, not recomputed).
    public struct Profile: Sendable, Hashable {
        public var isNotification: Bool
        public var contentAvailable: Bool
        public var priority: Priority
        public var originalPriority: Priority
        public var ttlSeconds: Int64
        public var collapseKey: String?

        public init(
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
    public struct Device: Sendable {
        public var id: DeviceID
        public var projectIndex: Int32
        public var platform: Platform
        public var name: String?
        public var appId: String
        public var token: String
        public var tokenValid: Bool
        public var fid: String
        public var state: DeviceState
        public var extraSenders: [String]
        /// Topics and when each was subscribed, sorted by name.
        public var topics: [(String, Instant)]
        public var createdAt: Instant
        public var lastConnectedAt: Instant
        public var lastInactiveDiscardAt: Instant?
        /// When FCM last saw the app (token expiry); nil in snapshots older than the field.
        public var lastSeenAt: Instant?
        public var deletedSignalOwed: Bool
        public var stateGeneration: UInt32
        public var stored: StoredList
        /// What the app received; nil when inboxes are not part of the snapshot.
        public var inbox: [Delivery]?
        /// What the user sees in the notification tray (at most `NotificationTray.capacity`).
        public var tray: [TrayEntry] = []
        /// High-priority data messages since a notification was last shown (deprioritization).
        public var unshownHighPriority: Int32 = 0

        public init(
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
    public struct RetiredToken: Sendable {
        public var token: String
        public var device: DeviceID
        public var canonicalUntil: Instant?

        public init(token: String, device: DeviceID, canonicalUntil: Instant?) {
            self.token = token
            self.device = device
            self.canonicalUntil = canonicalUntil
        }
    }

    /// A topic's subscribers in fan-out order.
    public struct Topic: Sendable {
        public var projectIndex: Int32
        public var name: String
        public var devices: [DeviceID]

        public init(projectIndex: Int32, name: String, devices: [DeviceID]) {
            self.projectIndex = projectIndex
            self.name = name
            self.devices = devices
        }
    }

    /// A pending timer, with the sequence that orders timers due at the same instant.
    public struct Timer: Sendable, Equatable {
        public enum Action: Sendable, Equatable {
            case expire(device: DeviceID, storeSequence: UInt64)
            case dozeMaintenance(device: DeviceID, generation: UInt32)
            case retryDelivery(device: DeviceID)

            public var device: DeviceID {
                switch self {
                case .expire(let d, _), .dozeMaintenance(let d, _), .retryDelivery(let d): return d
                }
            }
        }

        public var deadline: Instant
        public var sequence: UInt64
        public var action: Action

        public init(deadline: Instant, sequence: UInt64, action: Action) {
            self.deadline = deadline
            self.sequence = sequence
            self.action = action
        }
    }

    /// A topic or condition message still reaching its recipients.
    public struct FanOut: Sendable {
        public var message: Message
        public var recipients: [DeviceID]
        public var restricted: String?
        public var next: Int

        public init(message: Message, recipients: [DeviceID], restricted: String?, next: Int) {
            self.message = message
            self.recipients = recipients
            self.restricted = restricted
            self.next = next
        }
    }

    /// Counters and generator state: what makes the next id, token and sequence number the ones
    /// the original would have made.
    public struct Counters: Sendable, Equatable {
        public var randomState: UInt64
        public var microCounter: UInt64
        public var nextStoreSequence: UInt64
        public var nextTimerSequence: UInt64
        public var nextEventSequence: Int
        public var nextCCSConnection: Int

        public init(
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
    public struct RateWindow: Sendable, Equatable {
        public var key: String
        public var start: Instant
        public var count: Int

        public init(key: String, start: Instant, count: Int) {
            self.key = key
            self.start = start
            self.count = count
        }
    }

    /// The fault rules and how often each matched and fired.
    public struct Faults: Sendable, Equatable {
        public var rules: [FaultRule]
        public var matched: [String: Int]
        public var fired: [String: Int]

        public init(rules: [FaultRule], matched: [String: Int], fired: [String: Int]) {
            self.rules = rules
            self.matched = matched
            self.fired = fired
        }
    }

    /// What CCS owes one project's app server, in the order it will be sent.
    public struct CCSQueue: Sendable, Equatable {
        public var projectId: String
        public var items: [CCSItem]
        public var drainRequests: Int

        public init(projectId: String, items: [CCSItem], drainRequests: Int) {
            self.projectId = projectId
            self.items = items
            self.drainRequests = drainRequests
        }
    }
}

// MARK: - Restoring values the core otherwise makes itself

extension Message {
    /// A message as a snapshot recorded it.
    public static func restored(
        id: String, projectId: String, senderId: String, target: MessageTarget, content: MessageContent, api: SourceAPI,
        acceptedAt: Instant
    ) -> Message {
        Message(id: id, projectId: projectId, senderId: senderId, target: target, content: content, api: api, acceptedAt: acceptedAt)
    }
}

extension Event {
    /// An event as a snapshot recorded it.
    public init(
        restoring sequence: Int, time: Instant, kind: Kind, device: DeviceID?, message: Message?, related: Message?, detail: String?,
        call: EventCall? = nil
    ) {
        self.init(
            sequence: sequence, time: time, kind: kind, device: device, message: message, related: related, detail: detail, call: call)
    }
}

extension Delivery {
    /// A delivery as a snapshot recorded it.
    public init(
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
    public init(restoring name: String, notificationKey: String, tokens: [String], createdAt: Instant) {
        self.init(name: name, notificationKey: notificationKey, tokens: tokens, createdAt: createdAt)
    }
}
