// SPDX-License-Identifier: Apache-2.0

/// Counts events in a rolling window (the last minute, the last second) that is not aligned to
/// the clock, as FCM's quotas are ("these minutes are not aligned to the clock",
/// https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas).
///
/// Memory is fixed: the window is cut into `slots` buckets of `bucketMillis`, so a project sending
/// 600,000 messages a minute holds 60 counters, never one entry per message. A count leaves the
/// window when its whole bucket does, so the window is exact to one bucket.
struct SlidingWindowCounter: Sendable {
    let bucketMillis: Int64
    private var counts: [Int]
    /// The absolute bucket number (`millis / bucketMillis`) of the newest slot written.
    private var newest: Int64 = .min
    private(set) var total = 0

    init(window: Int64, bucketMillis: Int64) {
        self.bucketMillis = bucketMillis
        counts = Array(repeating: 0, count: Int(max(1, window / bucketMillis)))
    }

    private func bucket(_ instant: Instant) -> Int64 {
        instant.millis >= 0 ? instant.millis / bucketMillis : (instant.millis + 1) / bucketMillis - 1
    }

    private func slot(_ bucket: Int64) -> Int {
        let n = Int64(counts.count)
        return Int(((bucket % n) + n) % n)
    }

    /// Forgets the buckets that left the window by `now`.
    mutating func roll(to now: Instant) {
        let current = bucket(now)
        guard current > newest else { return }
        if newest == .min || current - newest >= Int64(counts.count) {
            for i in counts.indices { counts[i] = 0 }
            total = 0
        } else {
            var b = newest + 1
            while b <= current {
                total -= counts[slot(b)]
                counts[slot(b)] = 0
                b += 1
            }
        }
        newest = current
    }

    /// Counts one event at `now` (after `roll(to: now)`).
    mutating func add(at now: Instant) {
        roll(to: now)
        counts[slot(newest)] += 1
        total += 1
    }

    /// How long from `now` until the window holds fewer than `limit` events, if nothing more is
    /// counted: the time until enough of the oldest buckets have left it. At least one bucket.
    func millisUntilBelow(_ limit: Int, now: Instant) -> Int64 {
        var excess = total - limit + 1
        guard excess > 0, newest != .min else { return 0 }
        let n = Int64(counts.count)
        var b = newest - n + 1
        while b <= newest {
            excess -= counts[slot(b)]
            // Bucket b leaves the window when the window's start passes its end.
            if excess <= 0 { return max(bucketMillis, (b + n) * bucketMillis - now.millis) }
            b += 1
        }
        return n * bucketMillis
    }
}
