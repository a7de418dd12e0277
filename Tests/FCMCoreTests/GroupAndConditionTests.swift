// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("Device groups and the condition grammar")
struct GroupAndConditionTests {
    @Test func groupHoldsAtMostTwentyAndDiesWithItsLastMember() throws {
        let w = Harness()
        let devices = try (0..<21).map { _ in try w.device() }
        let group = try w.emu.createGroup(name: "user-1", tokens: devices.prefix(20).map(\.token), projectIdOrNumber: w.project)
        #expect(group.tokens.count == 20)
        #expect(throws: FCMError.self) {
            try w.emu.changeGroup(key: group.notificationKey, name: nil, add: [devices[20].token], projectIdOrNumber: w.project)
        }
        let remaining = try w.emu.changeGroup(
            key: group.notificationKey, name: nil, remove: devices.prefix(19).map(\.token), projectIdOrNumber: w.project)
        #expect(remaining?.tokens.count == 1)
        let gone = try w.emu.changeGroup(key: group.notificationKey, name: nil, remove: [devices[19].token], projectIdOrNumber: w.project)
        #expect(gone == nil)
        #expect(throws: FCMError.self) { try w.emu.group(named: "user-1", projectIdOrNumber: w.project) }
    }

    @Test func groupSendCountsSuccessesAndFailures() throws {
        let w = Harness()
        let a = try w.device()
        let b = try w.device()
        let group = try w.emu.createGroup(name: "g", tokens: [a.token, b.token], projectIdOrNumber: w.project)
        try w.emu.deleteDevice(String(b.id), projectId: w.project)
        let outcome = try w.emu.send(
            SendRequest(target: .notificationKey(group.notificationKey), content: MessageContent(data: [("k", "v")]), api: .legacy),
            from: DemoProject.number)
        #expect(outcome.groupSuccess == 1)
        #expect(outcome.groupFailedTokens == [b.token])
        #expect(try w.inbox(a).count == 1)
    }

    @Test func conditionsEvaluateLeftToRightAfterParentheses() throws {
        let c = try TopicCondition.parse("'a' in topics || 'b' in topics && 'c' in topics")
        // (a || b) && c, per "evaluates the expression from left to right".
        #expect(c.matches { $0 == "a" } == false)
        #expect(c.matches { $0 == "a" || $0 == "c" })
        let p = try TopicCondition.parse("'a' in topics || ('b' in topics && 'c' in topics)")
        #expect(p.matches { $0 == "a" })
        #expect(p.binaryOperatorCount == 2)
        #expect(p.topics == ["a", "b", "c"])
    }

    /// "This value is case-insensitive" (legacy reference, `condition`): the keywords read in any
    /// case, while topic names match exactly, as subscriptions do.
    @Test(arguments: ["'news' IN TOPICS", "'news' In Topics", "'news' in TOPICS && !('x' IN topics)"])
    func keywordsReadInAnyCase(_ text: String) throws {
        let c = try TopicCondition.parse(text)
        #expect(c.matches { $0 == "news" })
        #expect(c.matches { $0 == "NEWS" } == false)
    }

    @Test func topicNamesInAConditionMatchExactly() throws {
        let w = Harness()
        let lower = try w.device(topics: ["news"])
        let upper = try w.device(topics: ["News"])
        _ = try w.emu.send(
            SendRequest(
                target: .condition(try TopicCondition.parse("'news' IN TOPICS")), content: MessageContent(data: [("k", "v")]), api: .v1),
            from: w.project)
        #expect(try w.inbox(lower).count == 1)
        #expect(try w.inbox(upper).isEmpty)
    }

    @Test(arguments: [
        "", "'a' in topic", "'a' in topics \\\\ 'b' in topics", "'a' ib topics", "\"a\" in topics", "'a' in topics &&", "('a' in topics",
        "'a b' in topics", "'a' in topics 'b'",
    ])
    func malformedConditionsAreRefused(_ text: String) {
        #expect(throws: FCMError.self) { try TopicCondition.parse(text) }
    }
}
