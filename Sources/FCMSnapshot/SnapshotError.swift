// SPDX-License-Identifier: Apache-2.0

/// Why a snapshot cannot be read or written, with the file and line at fault, so a person can
/// open the file and look ("a message naming the file and line").
package struct SnapshotError: Error, Sendable, CustomStringConvertible {
    /// The file inside the snapshot directory (`devices.jsonl`), or the directory itself.
    package let file: String
    /// 1-based; nil when the problem is the file as a whole (missing, too short).
    package let line: Int?
    package let message: String

    package init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String {
        if let line { return "\(file) line \(line): \(message)" }
        return "\(file): \(message)"
    }
}
