// SPDX-License-Identifier: Apache-2.0

/// The values each setting may take: what `--set`, config files and scenarios accept (`set`
/// checks the whole settings after parsing one key) and what a snapshot import accepts, so no
/// route into the settings can plant a value that a later request overflows on.
extension EmulatorSettings {
    /// Durations, in milliseconds: `DurationText` reads no more than 9e15 ms (about 285,000
    /// years), so `now + duration` always fits an `Int64` (the clock stops at `Instant.latest`).
    package static let durationMillisRange: ClosedRange<Int64> = 0...8_999_999_999_999_999
    /// Durations kept in whole seconds.
    package static let durationSecondsRange: ClosedRange<Int64> = 0...durationMillisRange.upperBound / 1000
    /// Events kept in the log: up to ten times the default (each costs memory until it goes).
    package static let maxEventsRange: ClosedRange<Int> = 1...10_000_000
    package static let maxOutcomeDevicesRange: ClosedRange<Int> = 0...10_000_000
    /// Deliveries kept per device inbox: up to a hundred times the default.
    package static let maxInboxPerDeviceRange: ClosedRange<Int> = 1...100_000
    /// Device groups per project: up to a hundred times the default.
    package static let maxGroupsPerProjectRange: ClosedRange<Int> = 1...1_000_000
    /// Projects: up to a hundred times the default.
    package static let maxProjectsRange: ClosedRange<Int> = 1...100_000
    /// Devices: up to ten times the default (about 20 GiB of idle devices).
    package static let maxDevicesRange: ClosedRange<Int> = 1...20_000_000
    /// Fault rules: up to ten times the default. `GET /faults` answers every rule at once, each up
    /// to about 6 KiB of text, so this bounds that answer near 60 MiB.
    package static let maxFaultRulesRange: ClosedRange<Int> = 1...10_000
    /// Quotas: from 1 (a test's small quota) to a thousand times FCM's defaults.
    package static let quotaMessagesPerMinuteRange: ClosedRange<Int> = 1...600_000_000
    package static let quotaSubscriptionsPerSecondRange: ClosedRange<Int> = 1...3_000_000
    package static let quotaFanOutsInFlightRange: ClosedRange<Int> = 1...1_000_000
    /// Token expiry: off (0) or up to a century, so the threshold in milliseconds fits an `Int64`.
    package static let staleTokenDaysRange: ClosedRange<Int> = 0...36_500
    /// Unshown high-priority messages before demotion: off (0) or up to a million.
    package static let deprioritizeAfterRange: ClosedRange<Int> = 0...1_000_000

    /// Checks every setting against its range; the error names the setting as `--set` spells it.
    package func checkRanges() throws(FCMError) {
        let fixed = EmulatorSettings()
        try Self.check("dozeMaintenanceInterval", dozeMaintenanceIntervalSeconds, Self.durationSecondsRange, unit: "s")
        try Self.check("tokenRefreshGrace", tokenRefreshGraceSeconds, Self.durationSecondsRange, unit: "s")
        try Self.check("retryWindow", retryWindowSeconds, Self.durationSecondsRange, unit: "s")
        try Self.check("highPriorityLatency", highPriorityLatencyMillis, Self.durationMillisRange, unit: "ms")
        try Self.check("normalPriorityLatency", normalPriorityLatencyMillis, Self.durationMillisRange, unit: "ms")
        try Self.check("inactiveAfter", inactiveAfterSeconds, Self.durationSecondsRange, unit: "s")
        try Self.check("deletedSignalWindow", deletedSignalWindowSeconds, Self.durationSecondsRange, unit: "s")
        try Self.check("maxEvents", maxEvents, Self.maxEventsRange)
        try Self.check("maxOutcomeDevices", maxOutcomeDevices, Self.maxOutcomeDevicesRange)
        try Self.check("maxEventBytes", maxEventBytes, Self.maxEventBytesRange)
        try Self.check("maxInboxBytes", maxInboxBytes, Self.maxInboxBytesRange)
        try Self.check("maxInboxPerDevice", maxInboxPerDevice, Self.maxInboxPerDeviceRange)
        try Self.check("maxGroupsPerProject", maxGroupsPerProject, Self.maxGroupsPerProjectRange)
        try Self.check("maxProjects", maxProjects, Self.maxProjectsRange)
        try Self.check("maxDevices", maxDevices, Self.maxDevicesRange)
        try Self.check("maxFaultRules", maxFaultRules, Self.maxFaultRulesRange)
        try Self.check("quotaMessagesPerMinute", quotaMessagesPerMinute, Self.quotaMessagesPerMinuteRange)
        try Self.check("quotaSubscriptionsPerSecond", quotaSubscriptionsPerSecond, Self.quotaSubscriptionsPerSecondRange)
        try Self.check("quotaFanOutsInFlight", quotaFanOutsInFlight, Self.quotaFanOutsInFlightRange)
        try Self.check("staleTokenDays", staleTokenDays, Self.staleTokenDaysRange)
        try Self.check("deprioritizeAfter", deprioritizeAfter, Self.deprioritizeAfterRange)
        // FCM's own limits, which no flag changes: a world may hold lower ones (tests), never higher.
        try Self.check("maxStoredMessages", maxStoredMessages, 1...fixed.maxStoredMessages)
        try Self.check("maxCollapseKeys", maxCollapseKeys, 1...fixed.maxCollapseKeys)
        try Self.check("maxTopicsPerInstance", maxTopicsPerInstance, 1...fixed.maxTopicsPerInstance)
        try Self.check("maxGroupMembers", maxGroupMembers, 1...fixed.maxGroupMembers)
        try Self.check("maxSendersPerInstance", maxSendersPerInstance, 1...fixed.maxSendersPerInstance)
        for (name, limit) in [("deviceRateLimit", deviceRateLimit), ("topicRateLimit", topicRateLimit)] {
            guard let limit else { continue }
            try Self.check(name + ".messages", limit.messages, 1...Int.max)
            try Self.check(name + ".window", limit.windowSeconds, 1...Self.durationSecondsRange.upperBound, unit: "s")
        }
    }

    private static func check<T: Comparable>(_ name: String, _ value: T, _ range: ClosedRange<T>, unit: String = "") throws(FCMError) {
        guard range.contains(value) else {
            throw FCMError(
                .invalidArgument, "setting '\(name)' must be from \(range.lowerBound)\(unit) to \(range.upperBound)\(unit), not \(value)\(unit)",
                field: name)
        }
    }
}
