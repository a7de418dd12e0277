// SPDX-License-Identifier: Apache-2.0

/// The ranges a snapshot's numbers must fall in, checked at import: a counter at the edge of its
/// type, or an instant no clock reaches, would make a later ordinary request overflow (a trap
/// that takes the server down), so they are refused with the file and line instead.
/// Settings have their ranges in `EmulatorSettings.checkRanges`, shared with `--set`.
extension SnapshotRecord {
    /// Sequence numbers and counts go up by one per request: 2^53 is more than any run reaches
    /// (a million a second for 285 years) and leaves each of them room to count on without
    /// overflow; it is also the largest integer JSON tools read exactly (RFC 8259 §6).
    package static let counterRange: ClosedRange<UInt64> = 0...(1 << 53)
    /// Instants: the clock goes no further than `Instant.latest`, and a deadline is the clock
    /// plus a duration a setting or TTL allows; nothing the world computes lies beyond.
    package static let instantRange: ClosedRange<Int64> = {
        let bound = Instant.latest.millis + EmulatorSettings.durationMillisRange.upperBound
        return -bound...bound
    }()

    /// Checks a count or sequence number against `counterRange`.
    package static func checkCounter(_ value: some BinaryInteger, _ what: @autoclosure () -> String) throws(SnapshotProblem) {
        guard value >= 0, value <= counterRange.upperBound else {
            throw SnapshotProblem("\(what()) must be from 0 to 2^53, not \(value)")
        }
    }

    /// Checks an instant against `instantRange`.
    package static func checkInstant(_ value: Instant?, _ what: @autoclosure () -> String) throws(SnapshotProblem) {
        guard let value, !instantRange.contains(value.millis) else { return }
        throw SnapshotProblem("\(what()) is \(value.millis) ms, beyond any time the clock reaches")
    }
}

extension SnapshotRecord.Counters {
    /// Refuses counters a next request would overflow or misuse.
    package func check() throws(SnapshotProblem) {
        // The factory counts microseconds within a millisecond, modulo 1000 (IdentifierFactory).
        guard microCounter < 1000 else { throw SnapshotProblem("counters.microCounter must be below 1000, not \(microCounter)") }
        try SnapshotRecord.checkCounter(nextStoreSequence, "counters.nextStoreSequence")
        try SnapshotRecord.checkCounter(nextTimerSequence, "counters.nextTimerSequence")
        try SnapshotRecord.checkCounter(nextEventSequence, "counters.nextEventSequence")
        // Connection numbers start at 1 (CCSOutbox).
        guard nextCCSConnection >= 1 else { throw SnapshotProblem("counters.nextCCSConnection must be 1 or more") }
        try SnapshotRecord.checkCounter(nextCCSConnection, "counters.nextCCSConnection")
    }
}

extension SnapshotRecord.Device {
    /// Refuses instants beyond the clock's reach and TTLs beyond FCM's four weeks.
    func checkRanges() throws(SnapshotProblem) {
        try SnapshotRecord.checkInstant(createdAt, "device \(id) createdAt")
        try SnapshotRecord.checkInstant(lastConnectedAt, "device \(id) lastConnectedAt")
        try SnapshotRecord.checkInstant(lastInactiveDiscardAt, "device \(id) lastInactiveDiscardAt")
        try SnapshotRecord.checkInstant(lastSeenAt, "device \(id) lastSeenAt")
        for (_, since) in topics { try SnapshotRecord.checkInstant(since, "device \(id) topic subscription time") }
        for s in stored.store.items {
            try SnapshotRecord.checkInstant(s.availableAt, "device \(id) stored availableAt")
            try SnapshotRecord.checkInstant(s.expiresAt, "device \(id) stored expiresAt")
            guard (0...EmulatorSettings.maxTTLSeconds).contains(s.profile.ttlSeconds) else {
                throw SnapshotProblem("device \(id) stores a message with a TTL beyond \(EmulatorSettings.maxTTLSeconds) s")
            }
        }
        for d in inbox ?? [] { try Self.check(d, "device \(id) inbox") }
        guard tray.count <= NotificationTray.capacity else {
            throw SnapshotProblem("device \(id) shows more than \(NotificationTray.capacity) notifications")
        }
        for entry in tray { try Self.check(entry.delivery, "device \(id) tray") }
        guard unshownHighPriority >= 0 else { throw SnapshotProblem("device \(id) unshownHighPriority must not be negative") }
    }

    /// A delivery in an inbox or the tray: its time within the clock's reach, its TTL within
    /// FCM's four weeks (what the app reads as `ttl`, docs/limits.md).
    private static func check(_ delivery: Delivery, _ place: @autoclosure () -> String) throws(SnapshotProblem) {
        try SnapshotRecord.checkInstant(delivery.time, "\(place()) time")
        guard (0...EmulatorSettings.maxTTLSeconds).contains(delivery.ttlSeconds) else {
            throw SnapshotProblem("\(place()) holds a delivery with a TTL of \(delivery.ttlSeconds) s, beyond 0 to \(EmulatorSettings.maxTTLSeconds)")
        }
    }
}
