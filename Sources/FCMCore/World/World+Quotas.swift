// SPDX-License-Identifier: Apache-2.0

/// The windows of FCM's per-project quotas. Transient on purpose: a snapshot does not keep them,
/// since none spans more than a minute and a restored world starts as if a quiet minute had passed.
struct ProjectQuotas: Sendable {
    /// Messages in the rolling minute, in one-second buckets.
    var messages = SlidingWindowCounter(window: 60_000, bucketMillis: 1000)
    /// Topic subscription calls in the rolling second, in 100 ms buckets.
    var subscriptions = SlidingWindowCounter(window: 1000, bucketMillis: 100)
}

/// Every limit on how fast a sender may go, in one place: the optional per-device and per-topic
/// rate limits (`deviceRateLimit`, `topicRateLimit`) and FCM's per-project quotas (`quotas=fcm`,
/// https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas and "Subscription
/// throttling" / "Fanout throttling" in https://firebase.google.com/docs/cloud-messaging/topic-messaging).
extension World {
    /// Refuses a message when the project's rolling minute is full. FCM counts messages, not
    /// requests, and counts refused ones (4xx) too, except its 429s: `chargeMessage` is called for
    /// everything but a rate refusal.
    func checkMessageQuota(projectIndex: Int32, project: Project, toTopic: Bool) throws(FCMError) {
        guard settings.fcmQuotas, var window = quotas[projectIndex]?.messages else { return }
        window.roll(to: now)
        let limit = settings.quotaMessagesPerMinute
        guard window.total >= limit else { return }
        throw FCMError(
            toTopic ? .topicsMessageRateExceeded : .deviceMessageRateExceeded,
            "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service "
                + "'fcm.googleapis.com' for consumer 'project_number:\(project.number)'.",
            field: "message", reason: .projectQuota(limit: limit, projectNumber: project.number),
            retryAfterSeconds: Self.wholeSeconds(window.millisUntilBelow(limit, now: now)))
    }

    /// Counts one message against the project's minute.
    mutating func chargeMessage(projectIndex: Int32) {
        guard settings.fcmQuotas else { return }
        quotas[projectIndex, default: ProjectQuotas()].messages.add(at: now)
    }

    /// Refuses a topic or condition send while the project has as many fan-outs in progress as
    /// FCM allows ("additional fanout requests" are rejected). No retry delay: it depends on when
    /// the others finish.
    func checkFanOutQuota(project: Project) throws(FCMError) {
        guard settings.fcmQuotas else { return }
        let limit = settings.quotaFanOutsInFlight
        var inFlight = 0
        for job in fanOuts where job.message.projectId == project.id {
            inFlight += 1
            guard inFlight < limit else {
                throw FCMError(
                    .topicsMessageRateExceeded,
                    "Quota exceeded: at most \(limit) message fan-outs in progress for project '\(project.id)'",
                    field: "message", reason: .fanOutQuota(limit: limit))
            }
        }
    }

    /// Counts one topic subscription call (IID batchAdd/batchRemove) against the project's second,
    /// or refuses it when the second is full.
    mutating func chargeSubscriptionCall(projectIndex: Int32) throws(FCMError) {
        guard settings.fcmQuotas else { return }
        var state = quotas[projectIndex, default: ProjectQuotas()]
        state.subscriptions.roll(to: now)
        let limit = settings.quotaSubscriptionsPerSecond
        guard state.subscriptions.total < limit else {
            throw FCMError(
                .topicsMessageRateExceeded, "Topic subscription rate exceeded: at most \(limit) calls per second", field: "to",
                reason: .subscriptionQuota(limit: limit),
                retryAfterSeconds: Self.wholeSeconds(state.subscriptions.millisUntilBelow(limit, now: now)))
        }
        state.subscriptions.add(at: now)
        quotas[projectIndex] = state
    }

    /// Counts a message against an optional fixed-window limit (off by default).
    mutating func checkRate(_ limit: EmulatorSettings.RateLimit?, key: @autoclosure () -> String, code: FCMError.Code) throws(FCMError) {
        guard let limit else { return }
        let key = key()  // spelled only when a limit is set: most sends have none
        var window = rateWindows[key] ?? RateWindow(start: now, count: 0)
        if now.millis(since: window.start) >= limit.windowSeconds * 1000 { window = RateWindow(start: now, count: 0) }
        guard window.count < limit.messages else {
            let remaining = window.start.adding(seconds: limit.windowSeconds).millis(since: now)
            throw FCMError(
                code, "Message rate exceeded: at most \(limit.messages) per \(limit.windowSeconds) s", field: "message",
                retryAfterSeconds: Self.wholeSeconds(remaining)
            )
        }
        window.count += 1
        if rateWindows.updateValue(window, forKey: key) == nil, rateWindows.count >= rateWindowsPruneAt { pruneRateWindows() }
    }

    /// Forgets the windows that have ended: each topic name ever sent to and each device ever
    /// sent to kept one (about 1 KB with its key) in memory and in every snapshot, also after
    /// the device was deleted. An ended window counts as no window, so forgetting it changes no
    /// answer. Swept when the table has doubled since the last sweep, so a send pays for it
    /// amortized, never the whole table at once in a steady state.
    mutating func pruneRateWindows() {
        rateWindows = rateWindows.filter { isLive($0.key, $0.value) }
        rateWindowsPruneAt = max(Self.minRateWindowsPruneAt, 2 * rateWindows.count)
    }

    /// Whether a window still counts: its limit is set and it has not ended.
    func isLive(_ key: String, _ window: RateWindow) -> Bool {
        let limit = key.utf8.first == UInt8(ascii: "t") ? settings.topicRateLimit : settings.deviceRateLimit
        guard let limit else { return false }
        return now.millis(since: window.start) < limit.windowSeconds * 1000
    }

    static let minRateWindowsPruneAt = 1024

    /// A delay as `Retry-After` gives it: whole seconds, rounded up, at least one.
    private static func wholeSeconds(_ millis: Int64) -> Int64 { max(1, (millis + 999) / 1000) }
}

extension FCMError {
    /// A refusal for rate or quota (HTTP 429), which FCM leaves out of the quota it counts.
    package var isRateRefusal: Bool { code == .deviceMessageRateExceeded || code == .topicsMessageRateExceeded }
}
