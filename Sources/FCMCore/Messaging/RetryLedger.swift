// SPDX-License-Identifier: Apache-2.0

/// What an accepted send repeats (docs/simulation.md, "Retries made visible"): the same project,
/// target and request body as an earlier attempt within `retryWindow`. SDKs retry with the same
/// bytes (firebase-admin's urllib3 `Retry`, google-api-go-client's `gax` backoff), so a repeat is
/// either the SDK's retry or the app's blind one; a test tells which from `attempt` and the gaps.
package struct RetryMark: Sendable, Equatable {
    /// The id of the latest earlier identical send FCM accepted; nil when every earlier attempt
    /// was refused (a retry after 503 or 429).
    package let of: String?
    /// Which attempt this is: 2 for the first repeat.
    package let attempt: Int
    /// Milliseconds on the emulator's clock between consecutive attempts, oldest first: the newest
    /// `RetryLedger.maxGaps`.
    package let gapsMillis: [Int64]

    package init(of: String?, attempt: Int, gapsMillis: [Int64]) {
        self.of = of
        self.attempt = attempt
        self.gapsMillis = gapsMillis
    }
}

/// The attempts of recent sends by what they would repeat: every send that reaches the world
/// (refused by a fault, a quota or a check, or accepted), keyed by its front's fingerprint of the
/// request and its target. Entries older than the window are swept as the map doubles, and at most
/// `maxEntries` are kept (the oldest go first), so a flood of distinct sends costs a bounded map.
struct RetryLedger: Sendable {
    static let maxGaps = 8
    static let maxEntries = 65_536
    private static let firstSweep = 1_024

    private struct Entry: Sendable {
        var lastAt: Instant
        var attempts: Int
        var gaps: [Int64]
        var accepted: String?

        mutating func repeated(at now: Instant) {
            attempts += 1
            gaps.append(now.millis - lastAt.millis)
            if gaps.count > RetryLedger.maxGaps { gaps.removeFirst(gaps.count - RetryLedger.maxGaps) }
            lastAt = now
        }
    }

    private var entries: [UInt64: Entry] = [:]
    private var sweepAt = RetryLedger.firstSweep

    var count: Int { entries.count }

    /// Notes an attempt at `now`: its mark when it repeats one within `windowMillis`.
    mutating func attempt(_ key: UInt64, at now: Instant, windowMillis: Int64) -> RetryMark? {
        guard windowMillis > 0 else { return nil }
        // Changed where it lies: an entry copied out and stored back was hashed twice, and its
        // gaps, held by the map and the copy at once, were copied to be appended to.
        if let index = entries.index(forKey: key), now.millis - entries.values[index].lastAt.millis <= windowMillis {
            entries.values[index].repeated(at: now)
            let entry = entries.values[index]
            return RetryMark(of: entry.accepted, attempt: entry.attempts, gapsMillis: entry.gaps)
        }
        if entries.count >= sweepAt { sweep(now: now, windowMillis: windowMillis) }
        entries[key] = Entry(lastAt: now, attempts: 1, gaps: [], accepted: nil)
        return nil
    }

    /// The attempt under `key` was accepted as message `id`: a later repeat names it.
    mutating func accepted(_ key: UInt64, messageId: String) {
        entries[key]?.accepted = messageId
    }

    private mutating func sweep(now: Instant, windowMillis: Int64) {
        entries = entries.filter { now.millis - $0.value.lastAt.millis <= windowMillis }
        if entries.count >= Self.maxEntries {
            let newest = entries.sorted { $0.value.lastAt.millis > $1.value.lastAt.millis }.prefix(Self.maxEntries / 2)
            entries = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
        }
        sweepAt = max(Self.firstSweep, min(entries.count * 2, Self.maxEntries))
    }

    /// A send's key: its front's fingerprint of the request with its target, which tells apart the
    /// sends of one legacy request to several tokens (`SendFingerprint`'s steps, stable across runs).
    static func key(fingerprint: UInt64, target: String) -> UInt64 {
        SendFingerprint.mix(fingerprint, target)
    }
}

/// A front's fingerprint of a send request (`SendRequest.fingerprint`): the project or sender it
/// named and the request body's bytes, in 64 bits, stable across runs (it is kept in memory
/// only, never in a snapshot).
///
/// Over contiguous bytes, not any `Sequence`: a generic called from the fronts, across the module
/// boundary, ran unspecialized, a witness call per byte, and was half of a send's instructions
/// (docs/benchmarks.md). Eight bytes a step: FNV-1a's byte steps were a hundredth of a send.
package enum SendFingerprint {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    package static func of(project: String, body: [UInt8]) -> UInt64 {
        // Each part ends with its length, so ("ab", "c") and ("a", "bc") differ.
        body.withUnsafeBufferPointer { mix(mix(offsetBasis, project), $0) }
    }

    /// The steps over `text`'s UTF-8, from `hash`.
    static func mix(_ hash: UInt64, _ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { mix(hash, $0) }
    }

    /// Each eight bytes (little-endian) are folded in with a multiply by a large odd constant,
    /// which carries every bit upward, and a shift that brings the high half down; the last
    /// word holds what is left and the part's length.
    private static func mix(_ hash: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let raw = UnsafeRawBufferPointer(bytes)
        var hash = hash
        var at = 0
        while at + 8 <= raw.count {
            hash = step(hash, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            at += 8
        }
        var last = UInt64(truncatingIfNeeded: raw.count) << 56
        for i in at..<raw.count { last |= UInt64(raw[i]) << (8 * UInt64(i - at)) }
        return step(hash, last)
    }

    private static func step(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
        return mixed ^ (mixed >> 32)
    }
}
