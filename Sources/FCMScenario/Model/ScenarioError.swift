// SPDX-License-Identifier: Apache-2.0

/// A scenario file that cannot be run as written: where, what, and how to fix it.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String

    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}
