// SPDX-License-Identifier: Apache-2.0

// TopicCondition.parse with both APIs' limits. Whatever parses must respect them, reparse from its
// own text to an equal condition, and evaluate without trapping.

import FCMCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Fuzz.bytes(start, count)
    let text = String(decoding: bytes, as: UTF8.self)
    for (name, limits) in [("v1", TopicCondition.Limits.v1), ("legacy", .legacy)] {
        guard let condition = try? TopicCondition.parse(text, limits: limits) else { continue }
        Fuzz.check(condition.topics.count <= limits.maxTopics, "\(name): \(condition.topics.count) topics accepted in \(Fuzz.preview(bytes))")
        Fuzz.check(condition.binaryOperatorCount <= limits.maxOperators, "\(name): \(condition.binaryOperatorCount) operators accepted in \(Fuzz.preview(bytes))")
        Fuzz.check(condition.topics.count == condition.binaryOperatorCount + 1, "\(name): \(condition.topics.count) topics but \(condition.binaryOperatorCount) operators in \(Fuzz.preview(bytes))")
        do {
            let again = try TopicCondition.parse(condition.text, limits: limits)
            Fuzz.check(again == condition, "\(name): reparse differs for \(Fuzz.preview(bytes))")
        } catch {
            Fuzz.fail("\(name): its own text does not reparse (\(error)): \(Fuzz.preview(bytes))")
        }
        // Evaluate under a few subscription sets; `!x` must flip the answer.
        let topics = Set(condition.topics)
        _ = condition.matches { _ in true }
        _ = condition.matches { _ in false }
        _ = condition.matches { topics.contains($0) && $0.utf8.count % 2 == 0 }
        if let negated = try? TopicCondition.parse("!(\(condition.text))", limits: limits) {
            let subscribed: (String) -> Bool = { $0.hasPrefix("a") }
            Fuzz.check(negated.matches(subscribed) != condition.matches(subscribed), "\(name): !(c) does not negate c for \(Fuzz.preview(bytes))")
        }
    }
    return 0
}
