// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// Compares what a scenario expects with what happened. Objects match as subsets, keyed by
/// field name or dotted path (`payload.data.score`); arrays match element by element and length.
enum Matcher {
    static func differences(expected: JSONValue, actual: JSONValue?, path: String) -> [String] {
        switch expected {
        case .object(let pairs):
            var out: [String] = []
            for (key, value) in pairs {
                let child = path.isEmpty ? key : path + "." + key
                out += differences(expected: value, actual: lookup(actual, key), path: child)
            }
            return out
        case .array(let items):
            guard let actualItems = actual?.arrayValue else {
                return ["\(path): expected a list of \(items.count), got \(describe(actual))"]
            }
            var out: [String] = []
            if actualItems.count != items.count { out.append("\(path): expected \(items.count) items, got \(actualItems.count)") }
            for (i, item) in items.enumerated() where i < actualItems.count {
                out += differences(expected: item, actual: actualItems[i], path: "\(path)[\(i)]")
            }
            return out
        default:
            return equal(expected, actual) ? [] : ["\(path): expected \(expected.encoded()), got \(describe(actual))"]
        }
    }

    /// A field by exact name first (keys may contain dots, like `gcm.message_id`), then by path.
    static func lookup(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard let value else { return nil }
        if let direct = value[key] { return direct }
        if let index = Int(key), let items = value.arrayValue { return index >= 0 && index < items.count ? items[index] : nil }
        guard let dot = key.firstIndex(of: ".") else { return nil }
        return lookup(lookup(value, String(key[..<dot])), String(key[key.index(after: dot)...]))
    }

    /// Scalars compare by value; a number also equals its text (`"3"` and `3`), since YAML and
    /// wire formats disagree on which one they write.
    private static func equal(_ expected: JSONValue, _ actual: JSONValue?) -> Bool {
        guard let actual else { return expected == .null }
        if expected == actual { return true }
        switch (expected, actual) {
        case (.number(let n), .string(let s)), (.string(let s), .number(let n)): return Double(n) == Double(s)
        default: return false
        }
    }

    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        let text = value.encoded()
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
