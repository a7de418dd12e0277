// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Yams

/// YAML nodes as JSON values: plain scalars that read as numbers, booleans or null become them;
/// quoted scalars stay strings (so `"123"` remains a string, as FCM's string fields need).
package enum YAMLJSON {
    package static func json(_ node: Node) -> JSONValue {
        if let mapping = node.mapping { return .object(mapping.map { ($0.key.string ?? "", json($0.value)) }) }
        if let sequence = node.sequence { return .array(sequence.map(json)) }
        guard let scalar = node.scalar else { return .null }
        if scalar.style == .plain {
            let text = scalar.string
            if let n = Int64(text) { return .int(n) }
            if let d = Double(text), text.contains(".") { return .double(d) }
            if text == "true" || text == "false" { return .bool(text == "true") }
            if text == "null" || text == "~" { return .null }
        }
        return .string(scalar.string)
    }

    /// The 1-based line a node starts on.
    package static func line(_ node: Node) -> Int { (node.mark?.line ?? 0) }
}
