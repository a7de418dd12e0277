// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import FCMCore

/// Issue 23, item 7: a call reads only the rules of its kind and API, in order.
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
}
