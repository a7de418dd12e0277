// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// `waitFor` and `timeout` as the control API documents them (openapi.json: "a whole number",
/// "like 500ms or 10s"), and nothing looser: query values are read as they are, with no spaces
/// trimmed and no sign, hex or exponent (`timeout=0x10` was read as 16 seconds).
enum WaitParameters {
    /// A whole number in plain ASCII digits.
    static func count(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// A duration (`500ms`, `10s`, `5m`, `1m30s`, or plain seconds) in milliseconds.
    static func millis(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 32, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLetter || $0 == ".") }) else {
            return nil
        }
        return DurationText.millis(text)
    }
}
