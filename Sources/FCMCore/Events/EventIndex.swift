// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// The event log's sequence numbers by kind, oldest first, so a query that names kinds reads
/// only what it may match (docs/limits.md): 300 queries for a kind that never came, over a log of
/// a million events, each read the whole log, and the health checks beside them waited 8 to 14 s
/// for an event loop. Kept in step with the log: an entry goes when its event leaves the log
/// (always the oldest, so always the front of its list). Kinds are few, so the index costs one
/// entry per event and nothing per device (an index by device cost an allocation per device
/// with an event, 100 bytes for each idle device).
struct EventIndex: Sendable {
    private var byKind: [Event.Kind: Deque<Int>] = [:]

    mutating func add(_ event: Event) {
        byKind[event.kind, default: []].append(event.sequence)
    }

    /// `event`, the oldest kept, left the log.
    mutating func remove(_ event: Event) {
        if byKind[event.kind]?.first == event.sequence { byKind[event.kind]?.removeFirst() }
    }

    /// The sequences of events of one of `kinds` below `cursor`, newest first: at most `limit`
    /// of them. Nil when no kind narrows the read (the caller scans the log).
    func sequences(kinds: Set<Event.Kind>?, below cursor: Int, limit: Int) -> [Int]? {
        guard let kinds else { return nil }
        return Self.newest(in: kinds.compactMap { byKind[$0] }, below: cursor, limit: limit)
    }
    /// The newest `limit` entries below `cursor` of several ascending lists, newest first.
    private static func newest(in lists: [Deque<Int>], below cursor: Int, limit: Int) -> [Int] {
        // Where each list's entries below the cursor end (binary search: the lists ascend).
        var ends = lists.map { list -> Int in
            var low = 0
            var high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < cursor { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var found: [Int] = []
        while found.count < limit {
            var best: (list: Int, sequence: Int)?
            for (n, list) in lists.enumerated() where ends[n] > 0 {
                let sequence = list[ends[n] - 1]
                if best.map({ sequence > $0.sequence }) ?? true { best = (n, sequence) }
            }
            guard let best else { break }
            found.append(best.sequence)
            ends[best.list] -= 1
        }
        return found
    }
}
