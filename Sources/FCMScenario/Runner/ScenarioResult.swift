// SPDX-License-Identifier: Apache-2.0

/// How a scenario ended.
public struct ScenarioResult: Sendable {
    public struct Failure: Sendable {
        /// 1-based step number, 0 for the set-up.
        public let step: Int
        public let line: Int
        public let action: String
        public let differences: [String]
        /// The recent events of the devices involved, for the report.
        public let eventLog: [String]
    }

    public let name: String
    public let file: String
    public let steps: Int
    public let seconds: Double
    public let failure: Failure?

    public var passed: Bool { failure == nil }
}
