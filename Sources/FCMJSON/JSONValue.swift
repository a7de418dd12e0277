// SPDX-License-Identifier: Apache-2.0

/// A JSON value that keeps object keys in the order they were written.
///
/// Order matters twice in fcm-emu: error messages name fields by position
/// (`message.data[0].value`, as FCM's v1 errors name fields, per Google's AIP-193 field violations), and responses must come out byte for byte
/// as FCM writes them. Numbers keep their source text so that `12` and `12.0` stay distinguishable.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as the literal text it was written with (or rendered from).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Key/value pairs in document order. Duplicate keys are rejected by the parser.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b || (Double(a) != nil && Double(a) == Double(b))
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

// MARK: - Building

extension JSONValue {
    /// A number value from an integer.
    public static func int<I: BinaryInteger>(_ value: I) -> JSONValue { .number(String(value)) }

    /// A number value from a double, written without a fraction when it has none.
    /// JSON has no infinity or NaN: those are written as `null` rather than as an invalid token.
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    /// An object from pairs, dropping the pairs whose value is nil.
    public static func object(omittingNils pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(pairs.compactMap { key, value in value.map { (key, $0) } })
    }
}

// MARK: - Reading

extension JSONValue {
    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number as an exact integer, when it is one (`3`, `3.0`, `3e2`; not `3.5`).
    public var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        if let exact = Int64(text) { return exact }
        guard let d = Double(text), d.isFinite, d == d.rounded(), abs(d) < 9.2e18 else { return nil }
        return Int64(d)
    }

    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The JSON type name used in error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
