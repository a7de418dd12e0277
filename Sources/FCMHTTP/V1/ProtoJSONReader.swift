// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// A request that Google's JSON transcoder would refuse, worded as it words it, with the field
/// path it names (`message.data[0].value`).
struct TranscoderError: Error, Sendable {
    let field: String
    let message: String
}

/// Reads JSON into a schema by the proto3 JSON rules (FCM-WIRE.md §1.2): both snake_case and
/// lowerCamelCase names, case-insensitive enums and enum numbers, Duration and Timestamp strings,
/// string-only maps, unknown fields refused, `null` meaning "not set". The output keeps the
/// request's order and uses proto (snake_case) names, so later stages read one spelling.
enum ProtoJSONReader {
    static func read(_ value: JSONValue, as schema: ProtoMessage, path: String) throws(TranscoderError) -> [(String, JSONValue)] {
        guard case .object(let pairs) = value else {
            throw invalid(path.isEmpty ? "" : path, "type.googleapis.com/" + schema.typeName, value)
        }
        var out: [(String, JSONValue)] = []
        var oneofSet: String?
        for (key, item) in pairs {
            guard let field = schema.field(jsonName: key) else {
                let at = path.isEmpty ? "" : " at '\(path)'"
                throw TranscoderError(field: path, message: "Invalid JSON payload received. Unknown name \"\(key)\"\(at): Cannot find field.")
            }
            if item == .null { continue }
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            if out.contains(where: { $0.0 == field.name }) {
                throw TranscoderError(field: fieldPath, message: "Invalid JSON payload received. Duplicate field \"\(key)\".")
            }
            if let oneof = schema.oneof, oneof.fields.contains(field.name) {
                if oneofSet != nil {
                    throw TranscoderError(
                        field: path,
                        message: "Invalid value at '\(path)' (oneof), oneof field '\(oneof.name)' is already set. Cannot set '\(key)'"
                    )
                }
                oneofSet = field.name
            }
            out.append((field.name, try read(item, as: field.type, path: fieldPath)))
        }
        return out
    }

    private static func read(_ value: JSONValue, as type: ProtoType, path: String) throws(TranscoderError) -> JSONValue {
        switch type {
        case .string:
            guard case .string = value else { throw invalid(path, "TYPE_STRING", value) }
            return value
        case .bool:
            guard case .bool = value else { throw invalid(path, "TYPE_BOOL", value) }
            return value
        case .int32:
            // Proto3 JSON takes numbers or numeric strings for integers.
            let number = value.int64Value ?? value.stringValue.flatMap { Int64($0) }
            guard let number, number >= Int64(Int32.min), number <= Int64(Int32.max) else { throw invalid(path, "TYPE_INT32", value) }
            return .int(number)
        case .double:
            guard let d = value.doubleValue ?? value.stringValue.flatMap({ Double($0) }) else { throw invalid(path, "TYPE_DOUBLE", value) }
            return .double(d)
        case .duration:
            guard let text = value.stringValue, DurationParser.millis(text) != nil else {
                throw invalid(path, "type.googleapis.com/google.protobuf.Duration", value)
            }
            return value
        case .timestamp:
            guard let text = value.stringValue, TimestampShape.isValid(text) else {
                throw invalid(path, "type.googleapis.com/google.protobuf.Timestamp", value)
            }
            return value
        case .stringMap:
            guard case .object(let pairs) = value else { throw invalid(path, "type.googleapis.com/google.protobuf.Map", value) }
            for (index, (_, item)) in pairs.enumerated() {
                guard case .string = item else { throw invalid("\(path)[\(index)].value", "TYPE_STRING", item) }
            }
            return value
        case .structValue:
            guard case .object = value else { throw invalid(path, "type.googleapis.com/google.protobuf.Struct", value) }
            return value
        case .enumeration(let typeName, let values):
            if let number = value.int64Value, number >= 0, number < Int64(values.count) { return .string(values[Int(number)]) }
            guard let text = value.stringValue, let match = values.first(where: { $0.caseInsensitiveEquals(text) }) else {
                throw invalid(path, "type.googleapis.com/" + typeName, value)
            }
            return .string(match)
        case .message(let schema):
            return .object(try read(value, as: schema, path: path))
        case .repeated(let element):
            guard case .array(let items) = value else { throw invalid(path, "TYPE_LIST", value) }
            var out: [JSONValue] = []
            for (index, item) in items.enumerated() { out.append(try read(item, as: element, path: "\(path)[\(index)]")) }
            return .array(out)
        }
    }

    static func invalid(_ path: String, _ type: String, _ value: JSONValue) -> TranscoderError {
        TranscoderError(field: path, message: "Invalid value at '\(path)' (\(type)), \(value.encoded())")
    }
}

/// `google.protobuf.Duration` text: `^-?\d+(\.\d{1,9})?s$`, rounded down to the second for TTLs.
enum DurationParser {
    static func millis(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        var body = Substring(text.dropLast())
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy(\.isASCIIDigit), let seconds = Int64(whole) else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...9).contains(digits.count), digits.allSatisfy(\.isASCIIDigit) else { return nil }
            fraction = Int64(String(digits.prefix(3)).padding(toLength: 3)) ?? 0
        }
        let total = seconds * 1000 + fraction
        return negative ? -total : total
    }
}

enum TimestampShape {
    static func isValid(_ text: String) -> Bool {
        // RFC 3339 with a 'T', as Timestamp's JSON mapping requires; the core parser is shared.
        text.contains("T") && Instant(iso8601: text) != nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }

    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: "0", count: length - count)
    }
}

extension Substring {
    func padding(toLength length: Int) -> String { String(self).padding(toLength: length) }
}
