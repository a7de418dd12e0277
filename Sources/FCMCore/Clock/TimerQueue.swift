// SPDX-License-Identifier: Apache-2.0

import HeapModule

/// What the core must do when a timer comes due. Plain data, so a million pending timers cost a
/// few words each and the queue stays deterministic (no closures, no captured state).
enum TimerAction: Sendable, Equatable {
    /// A stored message reaches the end of its TTL (docs/simulation.md, "Lifespan (TTL)").
    case expire(device: DeviceID, storeSequence: UInt64)
    /// A dozing device wakes briefly; `generation` ties the timer to one stretch of Doze.
    case dozeMaintenance(device: DeviceID, generation: UInt32)
    /// A message held back by the configured delivery latency becomes deliverable.
    case retryDelivery(device: DeviceID)
}

/// The discrete-event queue behind the clock: timers fire in (deadline, sequence) order, so two
/// timers due at the same instant fire in the order they were scheduled, and runs repeat exactly.
struct TimerQueue: Sendable {
    struct Entry: Comparable, Sendable {
        let deadline: Instant
        let sequence: UInt64
        let action: TimerAction

        static func < (a: Entry, b: Entry) -> Bool {
            (a.deadline, a.sequence) < (b.deadline, b.sequence)
        }

        static func == (a: Entry, b: Entry) -> Bool { a.deadline == b.deadline && a.sequence == b.sequence }
    }

    private var heap = Heap<Entry>()
    private(set) var nextSequence: UInt64 = 0

    init() {}

    /// A queue holding exactly `entries` (a snapshot's timers), numbering new timers from `nextSequence`.
    init(entries: [Entry], nextSequence: UInt64) {
        heap = Heap(entries)
        self.nextSequence = nextSequence
    }

    /// Every pending timer, in no particular order.
    var entries: [Entry] { heap.unordered }

    var count: Int { heap.count }

    var nextDeadline: Instant? { heap.min?.deadline }

    mutating func schedule(_ action: TimerAction, at deadline: Instant) {
        heap.insert(Entry(deadline: deadline, sequence: nextSequence, action: action))
        nextSequence += 1
    }

    /// Removes and returns the earliest timer due at or before `limit`.
    mutating func popDue(notAfter limit: Instant) -> Entry? {
        guard let first = heap.min, first.deadline <= limit else { return nil }
        return heap.popMin()
    }
}
