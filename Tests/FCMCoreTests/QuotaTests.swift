// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import FCMCore
import FCMTesting

/// FCM's per-project quotas with `quotas=fcm`
/// (https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas).
@Suite struct QuotaTests {
    private func refusal(_ body: () throws -> Void) -> FCMError? { thrownFCMError(body) }

    private func quotas(messages: Int = 600_000, subscriptions: Int = 3000, fanOuts: Int = 1000) -> Harness {
        Harness {
            $0.fcmQuotas = true
            $0.quotaMessagesPerMinute = messages
            $0.quotaSubscriptionsPerSecond = subscriptions
            $0.quotaFanOutsInFlight = fanOuts
        }
    }

    @Test func backOffAndRecover() throws {
        let w = quotas(messages: 3)
        let d = try w.device()
        for _ in 0..<3 { try w.sendData(d) }
        let refused = try #require(refusal { try w.sendData(d) })
        #expect(refused.code == .deviceMessageRateExceeded)
        #expect(refused.reason == .projectQuota(limit: 3, projectNumber: DemoProject.number))
        let wait = try #require(refused.retryAfterSeconds)
        #expect(wait == 60)
        try w.advance(seconds: wait)
        #expect(refusal { try w.sendData(d) } == nil)
    }

    @Test func theMinuteRollsInsteadOfStartingOnTheClock() throws {
        let w = quotas(messages: 3)
        let d = try w.device()
        try w.sendData(d)
        try w.sendData(d)
        try w.advance(seconds: 30)
        try w.sendData(d)
        #expect(refusal { try w.sendData(d) }?.retryAfterSeconds == 30)
        // A minute after the first two they leave the window; the third stays until 90 s.
        try w.advance(seconds: 30)
        try w.sendData(d)
        try w.sendData(d)
        #expect(refusal { try w.sendData(d) }?.retryAfterSeconds == 30)
    }

    @Test func clientErrorsCountAndRefusalsForRateDoNot() throws {
        let w = quotas(messages: 2)
        let d = try w.device()
        let bad = SendRequest(target: .token("not-a-token"), content: MessageContent(), api: .v1)
        #expect(refusal { _ = try w.emu.send(bad, from: w.project) }?.code == .invalidRegistration)
        try w.sendData(d)
        for _ in 0..<5 { #expect(refusal { try w.sendData(d) }?.reason == .projectQuota(limit: 2, projectNumber: DemoProject.number)) }
        // The 429s were not counted: once the two counted ones leave the minute, two fit again.
        try w.advance(seconds: 60)
        try w.sendData(d)
        try w.sendData(d)
        #expect(refusal { try w.sendData(d) } != nil)
    }

    @Test func offUnlessAskedFor() throws {
        // A quota of one a minute, with quotas themselves off (the default): every send goes through.
        let w = Harness { $0.quotaMessagesPerMinute = 1 }
        let d = try w.device()
        for _ in 0..<5 { try w.sendData(d) }
        #expect(try w.inbox(d).count == 5)
        #expect(try w.emu.events(EventQuery(kinds: [.refused])).isEmpty)
    }

    @Test func topicSendsAreRefusedAsTopicRate() throws {
        let w = quotas(messages: 1)
        _ = try w.device(topics: ["news"])
        let news = SendRequest(target: .topic("news"), content: MessageContent(), api: .v1)
        _ = try w.emu.send(news, from: w.project)
        #expect(refusal { _ = try w.emu.send(news, from: w.project) }?.code == .topicsMessageRateExceeded)
    }

    @Test func subscriptionCallsPerSecond() throws {
        let w = quotas(subscriptions: 2)
        let d = try w.device()
        _ = try w.emu.manageTopic("a", tokens: [d.token], subscribe: true, senderProjectId: w.project)
        try w.emu.advance(byMillis: 500)
        _ = try w.emu.manageTopic("b", tokens: [d.token], subscribe: true, senderProjectId: w.project)
        let refused = try #require(refusal { _ = try w.emu.manageTopic("c", tokens: [d.token], subscribe: true, senderProjectId: nil) })
        #expect(refused.reason == .subscriptionQuota(limit: 2))
        #expect(refused.retryAfterSeconds == 1)
        // Half a second later the first call has left the rolling second.
        try w.emu.advance(byMillis: 500)
        _ = try w.emu.manageTopic("c", tokens: [d.token], subscribe: true, senderProjectId: w.project)
        #expect(try w.info(d).topics == ["a", "b", "c"])
    }

    @Test func fanOutsInFlight() throws {
        var settings = EmulatorSettings()
        settings.fcmQuotas = true
        settings.quotaFanOutsInFlight = 2
        var world = World(settings: settings, start: Instant.virtualEpoch)
        let project = try world.createProject(id: "quota-test", number: "1", serverKeys: [])
        let index = try world.projectIndex(id: "quota-test")
        let news = SendRequest(target: .topic("news"), content: MessageContent(), api: .v1)
        // Two fan-outs still reaching their recipients, as a big topic's would be.
        for _ in 0..<2 {
            let message = Message(
                id: "1", projectId: project.id, senderId: project.number, target: news.target, content: news.content, api: .v1,
                acceptedAt: world.now)
            world.fanOuts.append(FanOut(message: message, recipients: [], restricted: nil))
        }
        #expect(throws: FCMError.self) { try world.send(news, projectIndex: index) }
        do {
            _ = try world.send(news, projectIndex: index)
        } catch {
            #expect(error.reason == .fanOutQuota(limit: 2))
            #expect(error.retryAfterSeconds == nil)
        }
        _ = world.continueFanOuts()
        _ = try world.send(news, projectIndex: index)
    }

    @Test func windowMemoryIsFixed() {
        var counter = SlidingWindowCounter(window: 60_000, bucketMillis: 1000)
        // 100,000 events in ten seconds: counted in ten one-second buckets.
        for i in 0..<100_000 { counter.add(at: Instant(millis: Int64(i / 10))) }
        #expect(counter.total == 100_000)
        #expect(counter.millisUntilBelow(100_000, now: Instant(millis: 10_000)) == 50_000)
        // 100 s later everything has left the window.
        counter.roll(to: Instant(millis: 200_000))
        #expect(counter.total == 0)
    }
}
