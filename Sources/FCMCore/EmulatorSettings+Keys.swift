// SPDX-License-Identifier: Apache-2.0

extension EmulatorSettings {
    /// A setting by the name users write in flags, config files and scenarios.
    package struct Key: Sendable {
        package let name: String
        package let example: String
        package let help: String
        let apply: @Sendable (inout EmulatorSettings, String) throws(FCMError) -> Void
    }

    /// The settings of the simulated world, one table for `serve` and for scenarios.
    package static let keys: [Key] = [
        Key(name: "seed", example: "1", help: "Seed for tokens, ids and every random choice") { s, v throws(FCMError) in
            guard let seed = UInt64(v) else { throw bad(v, "a whole number") }
            s.seed = seed
        },
        Key(name: "dozeMaintenanceInterval", example: "15m", help: "Time between Doze maintenance windows; off = only when Doze ends") {
            s, v throws(FCMError) in
            s.dozeMaintenanceIntervalSeconds = v == "off" ? 0 : try seconds(v)
        },
        Key(name: "randomEviction", example: "false", help: "Evict a random (seeded) collapse key instead of the oldest when a 5th arrives")
        { s, v throws(FCMError) in
            s.randomEviction = try bool(v)
        },
        Key(name: "shuffleDelivery", example: "false", help: "Deliver stored messages in seeded random order instead of acceptance order") {
            s, v throws(FCMError) in
            s.shuffleDelivery = try bool(v)
        },
        Key(name: "tokenRefreshGrace", example: "0s", help: "How long a refreshed token still works, answering with its canonical id") {
            s, v throws(FCMError) in
            s.tokenRefreshGraceSeconds = try seconds(v)
        },
        Key(name: "retryWindow", example: "10m", help: "How long an identical send counts as a retry of an earlier one; off = never") {
            s, v throws(FCMError) in
            s.retryWindowSeconds = v == "off" ? 0 : try seconds(v)
        },
        Key(name: "highPriorityLatency", example: "0ms", help: "Delay before a high-priority message reaches a device") {
            s, v throws(FCMError) in
            s.highPriorityLatencyMillis = try millis(v)
        },
        Key(name: "normalPriorityLatency", example: "0ms", help: "Delay before a normal-priority message reaches a device") {
            s, v throws(FCMError) in
            s.normalPriorityLatencyMillis = try millis(v)
        },
        Key(name: "inactiveAfter", example: "30d", help: "A device away this long has new messages discarded at once") {
            s, v throws(FCMError) in
            s.inactiveAfterSeconds = try seconds(v)
        },
        Key(
            name: "deletedSignalWindow", example: "28d",
            help: "A device back within this long of a discarded message gets onDeletedMessages"
        ) { s, v throws(FCMError) in
            s.deletedSignalWindowSeconds = try seconds(v)
        },
        Key(name: "deviceRateLimit", example: "off", help: "Messages per device per window, e.g. 240/1m; off by default") {
            s, v throws(FCMError) in
            s.deviceRateLimit = try rateLimit(v)
        },
        Key(name: "topicRateLimit", example: "off", help: "Messages per topic per window, e.g. 1000/1m; off by default") {
            s, v throws(FCMError) in
            s.topicRateLimit = try rateLimit(v)
        },
        Key(name: "quotas", example: "off", help: "fcm: enforce FCM's per-project quotas (messages a minute, subscriptions, fan-outs)") {
            s, v throws(FCMError) in
            switch v {
            case "fcm": s.fcmQuotas = true
            case "off": s.fcmQuotas = false
            default: throw bad(v, "fcm or off")
            }
        },
        Key(name: "quotaMessagesPerMinute", example: "600000", help: "With quotas=fcm: messages per project in any rolling minute") {
            s, v throws(FCMError) in
            s.quotaMessagesPerMinute = try count(v)
        },
        Key(name: "quotaSubscriptionsPerSecond", example: "3000", help: "With quotas=fcm: topic subscription calls per project per second") {
            s, v throws(FCMError) in
            s.quotaSubscriptionsPerSecond = try count(v)
        },
        Key(name: "quotaFanOutsInFlight", example: "1000", help: "With quotas=fcm: topic/condition fan-outs in progress per project") {
            s, v throws(FCMError) in
            s.quotaFanOutsInFlight = try count(v)
        },
        Key(name: "staleTokenDays", example: "270", help: "Android tokens not connected for this many days are expired; 0 = off") {
            s, v throws(FCMError) in
            guard let n = Int(v), n >= 0 else { throw bad(v, "a whole number of days, or 0 for off") }
            s.staleTokenDays = n
        },
        Key(
            name: "deprioritizeAfter", example: "10",
            help: "High-priority Android data messages showing no notification before later ones are delivered at normal priority; 0 = off"
        ) { s, v throws(FCMError) in
            guard let n = Int(v), n >= 0 else { throw bad(v, "a whole number, or 0 for off") }
            s.deprioritizeAfter = n
        },
        Key(name: "maxGroupsPerProject", example: "10000", help: "Device groups one project may hold") { s, v throws(FCMError) in
            guard let n = Int(v), n >= 1 else { throw bad(v, "a positive number") }
            s.maxGroupsPerProject = n
        },
        Key(name: "maxProjects", example: "1000", help: "Projects the emulator may hold, the demo project included") {
            s, v throws(FCMError) in
            s.maxProjects = try count(v)
        },
        Key(name: "maxDevices", example: "2000000", help: "Devices the emulator may hold, in all projects together") {
            s, v throws(FCMError) in
            s.maxDevices = try count(v)
        },
        Key(name: "maxFaultRules", example: "1000", help: "Fault rules that may be in force at once") { s, v throws(FCMError) in
            s.maxFaultRules = try count(v)
        },
        Key(name: "maxEvents", example: "1000000", help: "Events kept in the log; the oldest go first") { s, v throws(FCMError) in
            guard let n = Int(v), n >= 1 else { throw bad(v, "a positive number") }
            s.maxEvents = n
        },
        Key(name: "maxOutcomeDevices", example: "100000", help: "Devices whose newest outcomes are kept (16 each); 0 keeps none") {
            s, v throws(FCMError) in
            guard let n = Int(v), EmulatorSettings.maxOutcomeDevicesRange.contains(n) else { throw bad(v, "a count from 0 to 10000000") }
            s.maxOutcomeDevices = n
        },
        Key(name: "maxEventBytes", example: "256MiB", help: "Bytes the event log may hold (1MiB to 64GiB); the oldest go first") {
            s, v throws(FCMError) in
            guard let n = byteCount(v), EmulatorSettings.maxEventBytesRange.contains(n) else {
                throw bad(v, "a size from 1MiB to 64GiB, such as 268435456, 512KiB, 256MiB or 2GiB")
            }
            s.maxEventBytes = n
        },
        Key(name: "maxInboxPerDevice", example: "1000", help: "Deliveries kept per device inbox; the oldest go first") {
            s, v throws(FCMError) in
            guard let n = Int(v), n >= 1 else { throw bad(v, "a positive number") }
            s.maxInboxPerDevice = n
        },
        Key(name: "maxInboxBytes", example: "256MiB", help: "Bytes all inboxes together may hold (1MiB to 64GiB); the oldest deliveries go first") {
            s, v throws(FCMError) in
            guard let n = byteCount(v), EmulatorSettings.maxInboxBytesRange.contains(n) else {
                throw bad(v, "a size from 1MiB to 64GiB, such as 268435456, 512KiB, 256MiB or 2GiB")
            }
            s.maxInboxBytes = n
        },
    ]

    /// Sets the setting named `name` from its text form.
    package mutating func set(_ name: String, _ value: String) throws(FCMError) {
        guard let key = Self.keys.first(where: { $0.name == name }) else {
            throw FCMError(
                .invalidArgument, "unknown setting '\(name)'" + NearestName.hint(for: name, among: Self.keys.map(\.name)), field: name)
        }
        var changed = self
        try key.apply(&changed, value)
        try changed.checkRanges()
        self = changed
    }

    private static func bad(_ v: String, _ expected: String) -> FCMError {
        FCMError(.invalidArgument, "expected \(expected), got '\(v)'")
    }

    /// A whole number for a cap; its range is checked with the rest (`checkRanges`).
    private static func count(_ v: String) throws(FCMError) -> Int {
        guard let n = Int(v), n >= 1 else { throw bad(v, "a positive number") }
        return n
    }

    private static func bool(_ v: String) throws(FCMError) -> Bool {
        switch v.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw bad(v, "true or false")
        }
    }

    private static func millis(_ v: String) throws(FCMError) -> Int64 {
        guard let ms = DurationText.millis(v) else { throw bad(v, "a duration such as 500ms, 90s, 15m, 2h or 28d") }
        return ms
    }

    /// A whole number of bytes, or of KiB, MiB or GiB (1024-based, as the README's limits are).
    static func byteCount(_ v: String) -> Int? {
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("", 1)]
        for (unit, scale) in units where v.hasSuffix(unit) {
            let digits = v.dropLast(unit.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 12, let n = Int(digits) else { return nil }
            let (bytes, overflow) = n.multipliedReportingOverflow(by: scale)
            return overflow ? nil : bytes
        }
        return nil
    }

    private static func seconds(_ v: String) throws(FCMError) -> Int64 { try millis(v) / 1000 }

    private static func rateLimit(_ v: String) throws(FCMError) -> RateLimit? {
        if v == "off" { return nil }
        let parts = v.split(separator: "/")
        guard parts.count == 2, let n = Int(parts[0]), n > 0, let window = DurationText.millis(String(parts[1])), window >= 1000 else {
            throw bad(v, "messages/window such as 240/1m, or off")
        }
        return RateLimit(messages: n, windowSeconds: window / 1000)
    }
}
