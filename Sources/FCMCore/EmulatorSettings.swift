// SPDX-License-Identifier: Apache-2.0

/// Every choice the real service leaves open, as a documented setting with the default that
/// docs/simulation.md names ("Where FCM leaves a choice open").
public struct EmulatorSettings: Sendable, Equatable {
    /// Seeds tokens, ids and every random choice, so runs repeat exactly.
    package var seed: UInt64 = 1
    /// Seconds between Doze maintenance windows; 0 turns them off (messages wait for Doze to end).
    package var dozeMaintenanceIntervalSeconds: Int64 = 900
    /// Evict a random collapse key (seeded) instead of the oldest when a 5th key arrives.
    package var randomEviction = false
    /// Deliver stored messages in a seeded random order instead of acceptance order.
    package var shuffleDelivery = false
    /// How long a refreshed token still works and answers with its canonical replacement.
    package var tokenRefreshGraceSeconds: Int64 = 0
    /// How long after a send an identical one (same project, target and body) counts as its
    /// retry (`Message.retry`); 0 turns the marking off.
    package var retryWindowSeconds: Int64 = 600
    /// Delay before a high-priority message reaches a device that can take it.
    package var highPriorityLatencyMillis: Int64 = 0
    /// Delay before a normal-priority message reaches a device that can take it.
    package var normalPriorityLatencyMillis: Int64 = 0
    /// After this long without connecting, a device's messages are discarded at once ("one month").
    package var inactiveAfterSeconds: Int64 = 30 * 86_400
    /// A device back within this long of its last discarded message gets the deleted-messages signal.
    package var deletedSignalWindowSeconds: Int64 = 28 * 86_400
    /// Stored non-collapsible messages per device before all are discarded.
    package var maxStoredMessages = 100
    /// Distinct collapse keys stored per device.
    package var maxCollapseKeys = 4
    /// Topics one app instance may be subscribed to.
    package var maxTopicsPerInstance = 2000
    /// Members of one device group.
    package var maxGroupMembers = 20
    /// Device groups of one project (FCM states none; each holds up to 20 tokens, so a peer must
    /// not be able to make millions).
    package var maxGroupsPerProject = 10_000
    /// Projects the emulator holds, the demo project included (each may get a service account,
    /// a 2048-bit RSA key made on first use).
    package var maxProjects = 1000
    /// Devices in all projects together: ~1 KiB each when idle (the `bench` memory figure), so
    /// the default holds a million-device load test with room to spare.
    package var maxDevices = 2_000_000
    /// Fault rules in force; every request that can be faulted reads them.
    package var maxFaultRules = 1000
    /// Senders allowed to message one app instance.
    package var maxSendersPerInstance = 100
    /// Messages per device per window; nil turns the limit off (the default).
    package var deviceRateLimit: RateLimit?
    /// Messages per topic per window; nil turns the limit off (the default).
    package var topicRateLimit: RateLimit?
    /// FCM's per-project quotas (`quotas=fcm`): off by default, so nothing is refused for volume
    /// unless a user asks (https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas).
    package var fcmQuotas = false
    /// Messages per project in any rolling minute (FCM's default quota is 600k).
    package var quotaMessagesPerMinute = 600_000
    /// Topic subscription changes (IID batchAdd/batchRemove calls) per project per rolling second.
    package var quotaSubscriptionsPerSecond = 3000
    /// Topic and condition fan-outs one project may have in progress at once.
    package var quotaFanOutsInFlight = 1000
    /// Android tokens of apps not connected for this many days are expired (refused as
    /// UNREGISTERED); 0 turns expiry off (https://firebase.google.com/docs/cloud-messaging/manage-tokens).
    package var staleTokenDays = 270
    /// High-priority Android data messages in a row, delivered to an app in the background with no
    /// notification shown, after which later ones arrive at normal priority. Google says FCM
    /// deprioritizes high-priority messages that do not lead to user-facing notifications, judged
    /// on 7 days of behaviour, without publishing a count
    /// (https://firebase.google.com/docs/cloud-messaging/android/message-priority); 10 is the
    /// emulator's choice. 0 turns it off.
    package var deprioritizeAfter = 10
    /// Events kept in the log; the oldest go first.
    package var maxEvents = 1_000_000
    /// Devices whose newest outcomes are kept (16 each, about 1 KiB when full: docs/control-api.md,
    /// "Outcomes"); past it a device with none gets none. 0 keeps none.
    package var maxOutcomeDevices = 100_000
    /// Bytes the event log may hold, counted as `EventLog.approximateBytes`; the oldest go first.
    package var maxEventBytes = 256 << 20
    /// `maxEventBytes`' range: a log of a few events at least, and no more than a machine has.
    package static let maxEventBytesRange: ClosedRange<Int> = (1 << 20)...(1 << 36)
    /// Deliveries kept per device inbox; the oldest go first.
    package var maxInboxPerDevice = 1000
    /// What every inbox together may hold (`InboxLedger`); the oldest deliveries go first.
    package var maxInboxBytes = 256 << 20
    /// `maxInboxBytes`' range, as `maxEventBytesRange`.
    package static let maxInboxBytesRange: ClosedRange<Int> = (1 << 20)...(1 << 36)

    public init() {}

    /// A rate limit: at most `messages` in each window of `windowSeconds`.
    package struct RateLimit: Sendable, Equatable {
        package var messages: Int
        package var windowSeconds: Int64

        package init(messages: Int, windowSeconds: Int64) {
            self.messages = messages
            self.windowSeconds = windowSeconds
        }
    }

    /// The longest TTL, 28 days ("Set the lifespan of a message",
    /// https://firebase.google.com/docs/cloud-messaging/customize-messages/setting-message-lifespan).
    package static let maxTTLSeconds: Int64 = 2_419_200
    /// The longest collapse key, and the longest app-server message id (CCS `message_id`), kept
    /// with every stored copy: FCM names no limit, a peer must not choose the memory.
    package static let maxCollapseKeyBytes = 1024
    package static let maxClientMessageIdBytes = 1024
}
