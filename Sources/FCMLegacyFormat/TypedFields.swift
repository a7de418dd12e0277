// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// Typed reads of a JSON object's fields, where a wrong type is an error worded in the caller's
/// dialect. `null` reads as absent.
package struct TypedFields<Failure: Error> {
    /// The JSON types a field can be asked for, for error messages.
    package enum Expected {
        case string, boolean, number, array, arrayOfStrings, object
    }

    package let pairs: [(String, JSONValue)]
    /// Words the error for `key` holding `value` where `expected` was wanted.
    package let wrongType: (_ key: String, _ expected: Expected, _ value: JSONValue) -> Failure

    package init(pairs: [(String, JSONValue)], wrongType: @escaping (_ key: String, _ expected: Expected, _ value: JSONValue) -> Failure) {
        self.pairs = pairs
        self.wrongType = wrongType
    }

    package func value(_ key: String) -> JSONValue? {
        guard let v = pairs.first(where: { $0.0 == key })?.1, v != .null else { return nil }
        return v
    }

    package func string(_ key: String) throws(Failure) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.stringValue else { throw wrongType(key, .string, v) }
        return s
    }

    package func bool(_ key: String) throws(Failure) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.boolValue else { throw wrongType(key, .boolean, v) }
        return b
    }

    package func number(_ key: String) throws(Failure) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = v.doubleValue else { throw wrongType(key, .number, v) }
        return d
    }

    package func integer(_ key: String) throws(Failure) -> Int64? {
        guard let v = value(key) else { return nil }
        guard let n = v.int64Value else { throw wrongType(key, .number, v) }
        return n
    }

    package func object(_ key: String) throws(Failure) -> [(String, JSONValue)]? {
        guard let v = value(key) else { return nil }
        guard let o = v.objectValue else { throw wrongType(key, .object, v) }
        return o
    }

    package func strings(_ key: String) throws(Failure) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let items = v.arrayValue else { throw wrongType(key, .array, v) }
        var out: [String] = []
        for item in items {
            guard let s = item.stringValue else { throw wrongType(key, .arrayOfStrings, v) }
            out.append(s)
        }
        return out
    }
}
