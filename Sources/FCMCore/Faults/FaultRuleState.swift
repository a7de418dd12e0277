// SPDX-License-Identifier: Apache-2.0

/// A rule in force and how often it has fired (kept with the rules, in snapshots too).
package struct FaultRuleState: Sendable {
    package let rule: FaultRule
    package let fired: Int

    package init(rule: FaultRule, fired: Int) {
        self.rule = rule
        self.fired = fired
    }
}

extension Emulator {
    /// Every rule in force, in order, with its `fired` count.
    package func faultRuleStates() -> [FaultRuleState] {
        withWorld { w in w.faults.rules.map { FaultRuleState(rule: $0, fired: w.faults.fired[$0.id] ?? 0) } }
    }

    /// One rule and its `fired` count, or `notFound`.
    package func faultRuleState(id: String) throws(FCMError) -> FaultRuleState {
        let state: FaultRuleState? = withWorld { w in
            w.faults.rules.first { $0.id == id }.map { FaultRuleState(rule: $0, fired: w.faults.fired[$0.id] ?? 0) }
        }
        guard let state else { throw FCMError(.notFound, "No fault rule '\(id)'", field: "id") }
        return state
    }
}
