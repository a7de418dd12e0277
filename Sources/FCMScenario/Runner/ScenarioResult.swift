// SPDX-License-Identifier: Apache-2.0

/// How a scenario ended.
package struct ScenarioResult: Sendable {
    package struct Failure: Sendable {
        /// 1-based step number, 0 for the set-up.
        package let step: Int
        package let line: Int
        package let action: String
        package let differences: [String]
        /// The recent events of the devices involved, for the report.
        package let eventLog: [String]
    }

    package let name: String
    package let file: String
    package let steps: Int
    package let seconds: Double
    package let failure: Failure?
    /// Fault rules still in force at the end that never fired: a rule whose `match` names a token,
    /// route or API the steps never used tests nothing, and a passing run would hide it.
    package var unusedFaults: [String] = []

    package var passed: Bool { failure == nil }
}
