// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import Testing

@Suite("Enums keyed by their case")
struct CaseHashingTests {
    @Test func everyEventKindIsItsOwnKey() {
        let kinds = Event.Kind.allCases
        #expect(Set(kinds.map { caseTag($0) }).count == kinds.count)
        var counts: [Event.Kind: Int] = [:]
        for (i, kind) in kinds.enumerated() { counts[kind] = i }
        for (i, kind) in kinds.enumerated() {
            #expect(counts[kind] == i)
            #expect(Event.Kind(rawValue: kind.rawValue) == kind)
        }
        #expect(Event.Kind.accepted != Event.Kind.delivered)
    }

    @Test func acceptedMessagesAreCountedByTheirAPI() {
        var counters = EventCounters()
        let message = { (api: SourceAPI) in
            Message(
                id: "m", projectId: "p", senderId: "1", target: .topic("t"), content: MessageContent(), api: api,
                acceptedAt: Instant(millis: 0))
        }
        for api in [SourceAPI.v1, .v1, .legacy, .xmpp, .v1] { counters.count(.accepted, message: message(api), call: nil) }
        #expect(counters.acceptedByAPI == ["v1": 3, "legacy": 1, "xmpp": 1])
        #expect(counters.total(.accepted) == 5 && counters.total(.delivered) == 0)
    }
}
