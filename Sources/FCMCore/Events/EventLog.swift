// SPDX-License-Identifier: Apache-2.0

import DequeModule
import Synchronization

/// The event log: the newest events, at most `EmulatorSettings.maxEvents` of them and at most
/// `maxEventBytes` counted as `EventLog.approximateBytes` (a million events of big
/// messages held about 3 GiB). The oldest go first when either cap is passed, a few per append, so
/// dropping old events costs the same small amount on every append (a bulk compaction would free
/// half a million messages at once, under the world's lock).
///
/// Sequence numbers only grow, across resets too, so a stream reader's `Last-Event-ID` never
/// points into a different history. `generation` tells one log from the log that replaced it (a
/// reset or an import), for readers that keep counts or encodings by sequence number.
struct EventLog: Sendable {
    private var ring: Deque<Event> = []
    /// `approximateBytes` of each kept event, in the same order.
    private var sizes: Deque<Int32> = []
    private(set) var bytes = 0
    /// Events dropped to keep within the caps since this log began.
    private(set) var evicted = 0
    /// The setting whose cap dropped the last evicted event: the one to raise to keep more.
    private(set) var evictedBy: EventLogCap?
    /// Sequences by kind, for queries that filter on kinds.
    private(set) var index = EventIndex()
    /// The sequence number the next event gets.
    private(set) var nextSequence: Int
    let capacity: Int
    let maxBytes: Int
    let generation: Int

    private static let generations = Atomic<Int>(0)

    /// An empty log that numbers its first event `firstSequence`.
    init(for settings: EmulatorSettings, firstSequence: Int = 0) {
        self.init(for: settings, events: [], nextSequence: max(0, firstSequence))
    }

    /// A log holding `events` (oldest first, the newest that fit kept) that numbers the next event
    /// `nextSequence`: a snapshot's log, or an empty one that goes on counting.
    init(for settings: EmulatorSettings, events: [Event], nextSequence: Int) {
        capacity = max(1, settings.maxEvents)
        maxBytes = max(1, settings.maxEventBytes)
        generation = Self.generations.add(1, ordering: .relaxed).newValue
        self.nextSequence = nextSequence
        for event in events.suffix(capacity) { keep(event) }
    }

    /// The sequence number of the oldest event kept.
    var oldestSequence: Int { nextSequence - ring.count }

    var count: Int { ring.count }

    /// The oldest event kept, whose time says since when the log is whole.
    var oldest: Event? { ring.first }

    mutating func append(
        time: Instant, kind: Event.Kind, device: DeviceID?, message: Message?, related: Message? = nil, detail: String? = nil,
        call: EventCall? = nil
    ) {
        let event = Event(
            sequence: nextSequence, time: time, kind: kind, device: device, message: message, related: related, detail: detail,
            call: call)
        nextSequence += 1
        keep(event)
    }

    private mutating func keep(_ event: Event) {
        let size =
            Self.fixedBytes + (event.detail.map(Self.stringBytes) ?? 0) + bytes(of: event.message) + bytes(of: event.related)
            + (event.call?.approximateBytes ?? 0)
        ring.append(event)
        index.add(event)
        sizes.append(Int32(clamping: size))
        bytes += size
        // The newest event stays even when it alone is over the byte cap: a log is never empty
        // right after something happened.
        while ring.count > 1, ring.count > capacity || bytes > maxBytes {
            evictedBy = ring.count > capacity ? .maxEvents : .maxEventBytes
            index.remove(ring.removeFirst())
            bytes -= Int(sizes.removeFirst())
            evicted += 1
        }
    }

    /// The kept event with this sequence number.
    subscript(sequence sequence: Int) -> Event? {
        let position = sequence - oldestSequence
        guard position >= 0, position < ring.count else { return nil }
        return ring[position]
    }

    /// Kept events, oldest first.
    var all: [Event] { Array(ring) }

    /// Kept events, newest first, read in place: a query for the last few events must not copy a
    /// log of a million under the world lock.
    var newestFirst: ReversedCollection<Deque<Event>> { ring.reversed() }

    // MARK: - Size

    /// What one event costs beside what it points to: the slot, its size, the optionals, and its
    /// entry in the index by kind.
    static let fixedBytes = MemoryLayout<Event>.stride + MemoryLayout<Int32>.stride + 16 + MemoryLayout<Int>.stride

    /// A Swift string holds up to 15 UTF-8 bytes inline; longer ones live on the heap with a header.
    static func stringBytes(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 0 : count + 32
    }

    /// A message counts whole for every event that refers to it (several do: accepted, stored,
    /// delivered), so the count is never below what the log holds alive.
    private func bytes(of message: Message?) -> Int { message?.approximateBytes ?? 0 }

    /// The message object, its ids and target, the payload as FCM measures it (keys and values),
    /// and per-platform headers.
    static func approximateBytes(id: String, projectId: String, senderId: String, content: MessageContent) -> Int {
        var size = 256 + stringBytes(id) + stringBytes(projectId) + stringBytes(senderId)
        size += AcceptanceChecks.payloadSize(content)
        func strings(_ pairs: StringPairs?) {
            for (k, v) in pairs ?? [] { size += k.utf8.count + v.utf8.count + 32 }
        }
        strings(content.apns?.headers)
        strings(content.webpush?.headers)
        strings(content.android?.data)
        strings(content.webpush?.data)
        size += 32 * (content.data.count + (content.android?.notification.count ?? 0) + (content.apns?.payload.count ?? 0))
        return size
    }
}
