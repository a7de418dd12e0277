// SPDX-License-Identifier: Apache-2.0

/// A scenario file that cannot be run as written: where, what, and how to fix it.
package struct ScenarioError: Error, Sendable, CustomStringConvertible {
    package let file: String
    package let line: Int
    package let message: String

    package init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String { "\(file):\(line): \(message)" }
}
