// SPDX-License-Identifier: Apache-2.0

/// A rule in force and how often it has fired (kept with the rules, in snapshots too).
public struct FaultRuleState: Sendable {
    public let rule: FaultRule
    public let fired: Int

    public init(rule: FaultRule, fired: Int) {
        self.rule = rule
        self.fired = fired
    }
}

extension Emulator {
    /// Every rule in force, in order, with its `fired` count.
    public func faultRuleStates() -> [FaultRuleState] {
        withWorld { w in w.faults.rules.map { FaultRuleState(rule: $0, fired: w.faults.fired[$0.id] ?? 0) } }
    }

    /// One rule and its `fired` count, or `notFound`.
    public func faultRuleState(id: String) throws(FCMError) -> FaultRuleState {
        let state: FaultRuleState? = withWorld { w in
            w.faults.rules.first { $0.id == id }.map { FaultRuleState(rule: $0, fired: w.faults.fired[$0.id] ?? 0) }
        }
        guard let state else { throw FCMError(.notFound, "No fault rule '\(id)'", field: "id") }
        return state
    }
}
