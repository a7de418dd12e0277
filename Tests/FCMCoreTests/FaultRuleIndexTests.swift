// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import FCMCore

/// A call reads only the rules of its kind and API, in order.
@Suite struct FaultRuleIndexTests {
    @Test func aCallMatchesTheFirstRuleOfItsAPIAndKindInOrder() {
        var injector = FaultInjector()
        injector.set([
            FaultRule(id: "legacy", match: .init(api: .legacy), action: .error(.internalError, retryAfterSeconds: nil)),
            FaultRule(id: "reset", action: .reset),
            FaultRule(id: "any", action: .error(.unavailable, retryAfterSeconds: nil)),
            FaultRule(id: "v1", match: .init(api: .v1), action: .error(.internalError, retryAfterSeconds: nil)),
        ])
        #expect(injector.transportRuleCount == 1 && injector.coreRuleCount == 3)
        var random = SeededRandom(seed: 1)
        let decide = { (api: FaultAPI, transport: Bool) -> String? in
            injector.decide(FaultContext(api: api), transport: transport, now: .virtualEpoch, deviceTokens: { _ in [] }, random: &random)?.id
        }
        #expect(decide(.legacy, false) == "legacy")
        #expect(decide(.v1, false) == "any")
        #expect(decide(.xmpp, true) == "reset")
        let removed = injector.remove(id: "any")
        #expect(removed)
        #expect(decide(.v1, false) == "v1")
        #expect(decide(.iid, false) == nil)
    }

    /// 1,000 rules, one per project, made every send read all of them; a call now reads the
    /// rules for any project and its own project's, in rule order, and searches targets as bytes.
    @Test func aCallReadsOnlyItsOwnProjectsRules() {
        var injector = FaultInjector()
        var rules = (0..<1000).map { n in
            FaultRule(id: "p\(n)", match: .init(api: .v1, project: "p\(n)", target: "news"), action: .error(.internalError, retryAfterSeconds: nil))
        }
        let route = FaultRule(
            id: "route", match: .init(route: "messages:send", target: "spo\u{301}rt"), action: .error(.unavailable, retryAfterSeconds: nil))
        rules.insert(route, at: 0)
        injector.set(rules)
        #expect(injector.positions(transport: false, api: .v1, projects: ["p500", "p500"]) == [0, 501])
        #expect(injector.positions(transport: false, api: .v1, projects: ["elsewhere"]) == [0])
        var random = SeededRandom(seed: 1)
        func decide(_ context: FaultContext) -> String? {
            injector.decide(context, transport: false, now: .virtualEpoch, deviceTokens: { _ in [] }, random: &random)?.id
        }
        #expect(decide(FaultContext(api: .v1, route: "/v1/messages:send", projects: ["p500"], text: #"{"topic":"news"}"#)) == "p500")
        #expect(decide(FaultContext(api: .v1, route: "/v1/messages:send", projects: ["p7"], text: #"{"topic":"sport"}"#)) == nil)
        #expect(decide(FaultContext(api: .v1, route: "/v1/messages:send", projects: ["p7"], text: "{\"topic\":\"spo\u{301}rt\"}")) == "route")
        #expect(decide(FaultContext(api: .v1, route: "/v1/other", projects: ["p7"], text: "{\"topic\":\"spo\u{301}rt\"}")) == nil)
    }
}
