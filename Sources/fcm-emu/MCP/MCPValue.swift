// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import MCP

/// The MCP SDK's `Value` and the emulator's `JSONValue`, each way: arguments go to the control
/// API as JSON, its answers come back as a tool's structured content.
enum MCPValue {
    /// Keys are written sorted: an MCP object has no order, and the same call should send the same bytes.
    static func json(_ value: Value) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        // A data URL, as the SDK itself encodes binary data.
        case .data(let mimeType, let data):
            return .string("data:\(mimeType ?? "application/octet-stream");base64,\(data.base64EncodedString())")
        case .array(let items): return .array(items.map(json))
        case .object(let fields): return .object(fields.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }

    static func value(_ json: JSONValue) -> Value {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let text):
            if let number = Int(text) { return .int(number) }
            return .double(Double(text) ?? 0)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(value))
        case .object(let pairs):
            var fields: [String: Value] = [:]
            for (key, item) in pairs { fields[key] = value(item) }
            return .object(fields)
        }
    }
}
