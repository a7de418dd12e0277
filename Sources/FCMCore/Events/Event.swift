// SPDX-License-Identifier: Apache-2.0

/// Something that happened in the simulated world, at a time on the emulator's clock.
/// The delivery log, the control API and scenario expectations all read these.
public struct Event: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case projectCreated, projectDeleted
        case deviceCreated, deviceDeleted
        case stateChanged
        case tokenRefreshed, tokenInvalidated
        case subscribed, unsubscribed
        case groupCreated, groupChanged, groupDeleted
        /// FCM accepted the message (once per send, not per recipient).
        case accepted
        /// Stored for a device that cannot take it now.
        case stored
        /// A stored message was replaced by a newer one with the same collapse key.
        case collapsed
        /// A stored message was evicted to keep to the collapse-key limit.
        case evicted
        /// A stored message reached the end of its TTL.
        case expired
        case delivered
        /// Dropped without delivery; `detail` says why.
        case discarded
        case deletedMessagesSignalled
        case clockAdvanced
        /// A fault rule fired; `detail` names it and what it did.
        case faultInjected
        /// A device sent an upstream message to its app server (XMPP).
        case upstream
        /// A delivery receipt was queued for the app server (XMPP).
        case receiptQueued
        /// The app server acked an upstream message or receipt.
        case ccsAcked
        /// An upstream message or receipt expired before the app server took it.
        case ccsExpired
        /// An upstream message or receipt was dropped unsent: its project's line was full.
        case ccsDropped
        /// A client asked the proxy for a host: `detail` says which, and whether the emulator
        /// answered for it, tunnelled it to the real host, or refused it.
        case proxyConnect
    }

    public let sequence: Int
    public let time: Instant
    public let kind: Kind
    public let device: DeviceID?
    public let message: Message?
    /// A second message the event concerns (the newer one in `collapsed`).
    public let related: Message?
    /// A short machine-readable reason or value (`ttl-zero`, `offline→foreground`, a topic…).
    public let detail: String?
}

/// The event log: a ring of `EmulatorSettings.maxEvents` slots. Once full, each new event
/// overwrites the oldest, so dropping old events costs the same small amount on every append
/// (a bulk compaction would free half a million messages at once, under the world's lock).
///
/// Sequence numbers only grow, across resets too, so a stream reader's `Last-Event-ID` never
/// points into a different history.
struct EventLog: Sendable {
    private var ring: [Event] = []
    /// Where the oldest event is once the ring is full.
    private var head = 0
    /// The sequence number the next event gets.
    private(set) var nextSequence: Int
    let capacity: Int

    init(capacity: Int, firstSequence: Int = 0) {
        self.capacity = max(1, capacity)
        nextSequence = max(0, firstSequence)
    }

    /// The sequence number of the oldest event kept.
    var oldestSequence: Int { nextSequence - ring.count }

    /// A log holding `events` (oldest first, the newest `capacity` kept) that numbers the next
    /// event `nextSequence`: a snapshot's log, or an empty one that goes on counting.
    init(capacity: Int, events: [Event], nextSequence: Int) {
        self.capacity = max(1, capacity)
        ring = Array(events.suffix(self.capacity))
        self.nextSequence = nextSequence
    }

    mutating func append(
        time: Instant, kind: Event.Kind, device: DeviceID?, message: Message?, related: Message? = nil, detail: String? = nil
    ) {
        let event = Event(
            sequence: nextSequence, time: time, kind: kind, device: device, message: message, related: related, detail: detail)
        nextSequence += 1
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[head] = event
            head = (head + 1) % capacity
        }
    }

    /// The kept event with this sequence number.
    subscript(sequence sequence: Int) -> Event? {
        let position = sequence - oldestSequence
        guard position >= 0, position < ring.count else { return nil }
        return ring[(head + position) % ring.count]
    }

    /// Kept events, oldest first.
    var all: [Event] { Array(ring[head...] + ring[..<head]) }

    /// Kept events, newest first, read in place: a query for the last few events must not copy a
    /// ring of a million under the world lock (issue 11).
    var newestFirst: LazyMapSequence<Range<Int>, Event> {
        let ring = ring
        let newest = head + ring.count - 1
        return (0..<ring.count).lazy.map { ring[(newest - $0) % ring.count] }
    }
}
