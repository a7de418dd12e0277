// SPDX-License-Identifier: Apache-2.0

import FCMJSON

extension YAMLNode {
    /// The node as a JSON value, for the files whose content is the control API's JSON written as
    /// YAML (projects, devices, fault rules, expectations). A plain scalar that reads as an
    /// integer, a float with a point, a boolean or null becomes one (YAML 1.1's core types); a
    /// quoted one stays a string, so `"123"` remains one, as FCM's string fields need.
    public var json: JSONValue {
        switch content {
        case .mapping(let pairs): return .object(pairs.map { ($0.key.string ?? "", $0.value.json) })
        case .sequence(let items): return .array(items.map(\.json))
        case .scalar(let text, let plain):
            if plain {
                if let n = Int64(text) { return .int(n) }
                if let d = Double(text), text.contains(".") { return .double(d) }
                if text == "true" || text == "false" { return .bool(text == "true") }
                if text == "null" || text == "~" { return .null }
            }
            return .string(text)
        }
    }
}
