// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Reads JSON into a schema by the proto3 JSON rules (https://protobuf.dev/programming-guides/json/): both snake_case and
/// lowerCamelCase names, case-insensitive enums and enum numbers, Duration and Timestamp strings,
/// string-only maps, unknown fields refused, `null` meaning "not set". The output keeps the
/// request's order and uses proto (snake_case) names, so later stages read one spelling.
enum ProtoJSONReader {
    static func read(_ value: JSONValue, as schema: ProtoMessage, path: String) throws(V1Error) -> [(String, JSONValue)] {
        guard case .object(let pairs) = value else {
            throw invalid(path.isEmpty ? "" : path, "type.googleapis.com/" + schema.typeName, value)
        }
        var out: [(String, JSONValue)] = []
        out.reserveCapacity(pairs.count)
        // The oneofs already set, a bit for each index in `schema.oneofs` (a message has one or two).
        var oneofsSet: UInt64 = 0
        for (key, item) in pairs {
            guard let field = schema.field(jsonName: key) else {
                let at = path.isEmpty ? "" : " at '\(path)'"
                throw V1Error.transcoder(
                    field: path, message: "Invalid JSON payload received. Unknown name \"\(key)\"\(at): Cannot find field.")
            }
            if item == .null { continue }
            // The field's path is spelled only when something reads it: an error, or a nested
            // message's own fields (joining strings for every field was a tenth of this reader).
            func fieldPath() -> String { path.isEmpty ? field.name : path + "." + field.name }
            if out.contains(where: { $0.0.equalsLengthFirst(field.name) }) {
                throw V1Error.transcoder(field: fieldPath(), message: "Invalid JSON payload received. Duplicate field \"\(key)\".")
            }
            if let oneof = field.oneof {
                let bit: UInt64 = 1 << UInt64(oneof)
                if oneofsSet & bit != 0 {
                    let name = schema.oneofs[oneof].name
                    throw V1Error.transcoder(
                        field: path, message: "Invalid value at '\(path)' (oneof), oneof field '\(name)' is already set. Cannot set '\(key)'")
                }
                oneofsSet |= bit
            }
            out.append((field.name, try read(item, as: field.type, path: fieldPath())))
        }
        return out
    }

    private static func read(_ value: JSONValue, as type: ProtoType, path: @autoclosure () -> String) throws(V1Error) -> JSONValue {
        switch type {
        case .string:
            guard case .string = value else { throw invalid(path(), "TYPE_STRING", value) }
            return value
        case .bool:
            guard case .bool = value else { throw invalid(path(), "TYPE_BOOL", value) }
            return value
        case .int32:
            // Proto3 JSON takes numbers or numeric strings for integers.
            let number = value.int64Value ?? value.stringValue.flatMap { Int64($0) }
            guard let number, number >= Int64(Int32.min), number <= Int64(Int32.max) else { throw invalid(path(), "TYPE_INT32", value) }
            return .int(number)
        case .double:
            guard let d = value.doubleValue ?? value.stringValue.flatMap({ Double($0) }) else {
                throw invalid(path(), "TYPE_DOUBLE", value)
            }
            return .double(d)
        case .duration:
            guard let text = value.stringValue, DurationParser.millis(text) != nil else {
                throw invalid(path(), "type.googleapis.com/google.protobuf.Duration", value)
            }
            return value
        case .timestamp:
            guard let text = value.stringValue, TimestampShape.isValid(text) else {
                throw invalid(path(), "type.googleapis.com/google.protobuf.Timestamp", value)
            }
            return value
        case .stringMap:
            guard case .object(let pairs) = value else { throw invalid(path(), "type.googleapis.com/google.protobuf.Map", value) }
            for (index, (_, item)) in pairs.enumerated() {
                guard case .string = item else { throw invalid("\(path())[\(index)].value", "TYPE_STRING", item) }
            }
            return value
        case .structValue:
            guard case .object = value else { throw invalid(path(), "type.googleapis.com/google.protobuf.Struct", value) }
            return value
        case .enumeration(let typeName, let values):
            if let number = value.int64Value, number >= 0, number < Int64(values.count) { return .string(values[Int(number)]) }
            guard let text = value.stringValue, let match = values.first(where: { $0.equalsIgnoringASCIICase(text) }) else {
                throw invalid(path(), "type.googleapis.com/" + typeName, value)
            }
            return .string(match)
        case .message(let schema):
            return .object(try read(value, as: schema, path: path()))
        case .repeated(let element):
            guard case .array(let items) = value else { throw invalid(path(), "TYPE_LIST", value) }
            var out: [JSONValue] = []
            for (index, item) in items.enumerated() { out.append(try read(item, as: element, path: "\(path())[\(index)]")) }
            return .array(out)
        }
    }

    static func invalid(_ path: String, _ type: String, _ value: JSONValue) -> V1Error {
        V1Error.transcoder(field: path, message: "Invalid value at '\(path)' (\(type)), \(value.encoded())")
    }
}

/// `google.protobuf.Duration` text: `^-?\d+(\.\d{1,9})?s$`, rounded down to the second for TTLs.
enum DurationParser {
    static func millis(_ text: String) -> Int64? {
        // Read in place where the text is contiguous (a TTL is read twice a send: checked, then used).
        var text = text
        return text.withUTF8 { millis($0[...]) }
    }

    private static func millis(_ all: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        guard all.last == UInt8(ascii: "s") else { return nil }
        var bytes = all.dropLast()
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let whole = bytes[..<(dot ?? bytes.endIndex)]
        let fraction = dot.map { bytes[bytes.index(after: $0)...] } ?? bytes[bytes.endIndex...]
        guard (1...12).contains(whole.count), whole.allSatisfy(isDigit), dot == nil || (1...9).contains(fraction.count),
            fraction.allSatisfy(isDigit)
        else { return nil }
        var millis: Int64 = 0
        for d in whole { millis = millis * 10 + Int64(d - 48) }
        millis *= 1000
        // Milliseconds from the first three fractional digits; the rest is rounded down.
        var scale: Int64 = 100
        for d in fraction.prefix(3) {
            millis += Int64(d - 48) * scale
            scale /= 10
        }
        return negative ? -millis : millis
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}

enum TimestampShape {
    static func isValid(_ text: String) -> Bool {
        // RFC 3339 with a 'T', as Timestamp's JSON mapping requires; the core parser is shared.
        text.contains("T") && Instant(iso8601: text) != nil
    }
}
