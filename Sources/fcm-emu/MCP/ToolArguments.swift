// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// A tool call the emulator could not carry out: said to the agent as a tool result with
/// `isError` (the MCP specification, 2025-06-18, "Tools", "Error Handling"), so it can correct
/// the call, never as a protocol error.
struct ToolFailure: Error, Equatable {
    let message: String
    /// The control API's or FCM's error body, when the emulator answered with one.
    var body: JSONValue?

    init(_ message: String, body: JSONValue? = nil) {
        self.message = message
        self.body = body
    }
}

/// One call's arguments, checked before anything reaches the emulator: each tool's input schema
/// says the same, but a client need not enforce it (docs/mcp.md, "Limits").
struct ToolArguments {
    /// The longest string argument read: ids, names, tokens and kind lists are far shorter.
    static let maxString = 4096
    /// The states the control API takes (`State` in its OpenAPI document).
    static let states = ["foreground", "background", "doze", "offline", "uninstalled"]
    static let platforms = ["android", "ios", "web"]

    let values: [String: JSONValue]

    init(_ values: [String: JSONValue]?) { self.values = values ?? [:] }

    /// A call's `arguments`: an object, or absent.
    init(json: JSONValue?) throws(ToolFailure) {
        guard let json, json != .null else {
            self.init(nil)
            return
        }
        guard let pairs = json.objectValue else { throw ToolFailure("arguments must be a JSON object") }
        self.init(Dictionary(pairs, uniquingKeysWith: { _, last in last }))
    }

    /// A string argument, nil when absent; refused when it is not a string, empty or too long.
    func string(_ name: String) throws(ToolFailure) -> String? {
        guard let value = values[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw ToolFailure("\(name) must be a string") }
        guard !text.isEmpty else { throw ToolFailure("\(name) must not be empty") }
        guard text.utf8.count <= Self.maxString else { throw ToolFailure("\(name) is longer than \(Self.maxString) bytes") }
        return text
    }

    func required(_ name: String) throws(ToolFailure) -> String {
        guard let text = try string(name) else { throw ToolFailure("\(name) is required") }
        return text
    }

    /// A string that must be one of `allowed`.
    func choice(_ name: String, _ allowed: [String]) throws(ToolFailure) -> String? {
        guard let text = try string(name) else { return nil }
        guard allowed.contains(text) else {
            throw ToolFailure("\(name) must be one of \(allowed.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }

    /// An integer in `range`, `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(ToolFailure) -> Int {
        guard let value = values[name], value != .null else { return fallback }
        // 5 and 5.0 alike; JSON has one kind of number.
        let number: Int? =
            switch value {
            case .number(let text): Int(text) ?? Double(text).flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
            default: nil
            }
        guard let number, range.contains(number) else {
            throw ToolFailure("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func bool(_ name: String) throws(ToolFailure) -> Bool? {
        guard let value = values[name], value != .null else { return nil }
        guard let flag = value.boolValue else { throw ToolFailure("\(name) must be true or false") }
        return flag
    }

    /// An object argument, such as a v1 `message`.
    func object(_ name: String) throws(ToolFailure) -> JSONValue {
        guard let value = values[name], value.objectValue != nil else { throw ToolFailure("\(name) must be a JSON object") }
        return value
    }

    /// A list of short strings (topics), at most `max` of them.
    func strings(_ name: String, max: Int) throws(ToolFailure) -> [String]? {
        guard let value = values[name], value != .null else { return nil }
        guard let items = value.arrayValue, items.count <= max else {
            throw ToolFailure("\(name) must be an array of at most \(max) strings")
        }
        var out: [String] = []
        for item in items {
            guard let text = item.stringValue, !text.isEmpty, text.utf8.count <= Self.maxString else {
                throw ToolFailure("\(name) must hold non-empty strings")
            }
            out.append(text)
        }
        return out
    }

    /// A clock duration as the control API reads it ("10m", "1h30m", "500ms"; FCMCore's
    /// `DurationText`), checked here so a typo is said before the emulator is asked.
    func duration(_ name: String) throws(ToolFailure) -> String {
        let text = try required(name)
        guard text.utf8.count <= 64, let millis = DurationText.millis(text), millis > 0 else {
            throw ToolFailure("\(name) must be a positive duration such as 500ms, 30s, 10m, 2h or 1h30m, not '\(text.prefix(40))'")
        }
        return text
    }

    /// Names the arguments the tool does not take, so a misspelt one is not silently ignored.
    func refuseUnknown(_ known: [String]) throws(ToolFailure) {
        let unknown = values.keys.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw ToolFailure(
                "unknown argument\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); this tool takes \(known.joined(separator: ", "))"
            )
        }
    }
}
