// SPDX-License-Identifier: Apache-2.0

import FCMSnapshot

/// Standard output and error, written whole: what `FileHandle.standardOutput` did, without full
/// Foundation (docs/development.md, "The binary"). A closed stream (a reader gone) loses the text
/// quietly, as it did.
enum StandardStreams {
    private static let output = OwnedFile(descriptor: 1, closes: false)
    private static let error = OwnedFile(descriptor: 2, closes: false)

    static func write(_ text: String) { write(Array(text.utf8)) }

    static func write(_ bytes: [UInt8]) { try? output.write(bytes) }

    static func writeError(_ text: String) { try? error.write(Array(text.utf8)) }
}
