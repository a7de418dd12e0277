// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// Reads one JSON object's fields strictly: every field asked for is checked for its type, and
/// `finish` refuses a field nobody asked for, so a snapshot from a newer emulator with fields this
/// one does not know is refused rather than silently half-read.
struct JSONFields {
    private let pairs: [(String, JSONValue)]
    private let context: String
    /// Keys asked for; a handful per object, so an array beats a set.
    private var asked: [String] = []

    init(_ value: JSONValue, _ context: String) throws(SnapshotProblem) {
        guard let pairs = value.objectValue else { throw SnapshotProblem("\(context) must be a JSON object") }
        self.pairs = pairs
        self.context = context
    }

    mutating func optional(_ key: String) -> JSONValue? {
        asked.append(key)
        guard let value = pairs.first(where: { $0.0 == key })?.1 else { return nil }
        if case .null = value { return nil }
        return value
    }

    mutating func required(_ key: String) throws(SnapshotProblem) -> JSONValue {
        guard let value = optional(key) else { throw SnapshotProblem("\(context) lacks \"\(key)\"") }
        return value
    }

    mutating func string(_ key: String) throws(SnapshotProblem) -> String {
        guard let s = try required(key).stringValue else { throw SnapshotProblem("\(context).\(key) must be a string") }
        return s
    }

    mutating func optionalString(_ key: String) throws(SnapshotProblem) -> String? {
        guard let value = optional(key) else { return nil }
        guard let s = value.stringValue else { throw SnapshotProblem("\(context).\(key) must be a string") }
        return s
    }

    mutating func int(_ key: String) throws(SnapshotProblem) -> Int64 {
        guard let v = try required(key).int64Value else { throw SnapshotProblem("\(context).\(key) must be a whole number") }
        return v
    }

    mutating func optionalInt(_ key: String) throws(SnapshotProblem) -> Int64? {
        guard let value = optional(key) else { return nil }
        guard let v = value.int64Value else { throw SnapshotProblem("\(context).\(key) must be a whole number") }
        return v
    }

    mutating func bool(_ key: String, default fallback: Bool = false) throws(SnapshotProblem) -> Bool {
        guard let value = optional(key) else { return fallback }
        guard let b = value.boolValue else { throw SnapshotProblem("\(context).\(key) must be true or false") }
        return b
    }

    mutating func instant(_ key: String) throws(SnapshotProblem) -> Instant { try instant(try int(key), key) }

    mutating func optionalInstant(_ key: String) throws(SnapshotProblem) -> Instant? {
        guard let millis = try optionalInt(key) else { return nil }
        return try instant(millis, key)
    }

    /// An instant within the clock's reach (`SnapshotRecord.instantRange`).
    private func instant(_ millis: Int64, _ key: String) throws(SnapshotProblem) -> Instant {
        let instant = Instant(millis: millis)
        try SnapshotRecord.checkInstant(instant, "\(context).\(key)")
        return instant
    }

    mutating func array(_ key: String) throws(SnapshotProblem) -> [JSONValue] {
        guard let value = optional(key) else { return [] }
        guard let items = value.arrayValue else { throw SnapshotProblem("\(context).\(key) must be an array") }
        return items
    }

    /// A whole number that fits `T`.
    mutating func number<T: FixedWidthInteger>(_ key: String, as: T.Type) throws(SnapshotProblem) -> T {
        guard let v = T(exactly: try int(key)) else { throw SnapshotProblem("\(context).\(key) is out of range") }
        return v
    }

    /// A UInt64 written as a decimal string (JSON numbers lose precision past 2^53 in most tools).
    mutating func uint64(_ key: String) throws(SnapshotProblem) -> UInt64 {
        guard let v = UInt64(try string(key)) else { throw SnapshotProblem("\(context).\(key) must be a decimal string") }
        return v
    }

    mutating func enumValue<E: RawRepresentable>(_ key: String, as: E.Type) throws(SnapshotProblem) -> E where E.RawValue == String {
        guard let v = E(rawValue: try string(key)) else { throw SnapshotProblem("\(context).\(key) has an unknown value") }
        return v
    }

    /// String pairs written as `[["key","value"],…]`, order and repeats kept.
    mutating func pairs(_ key: String) throws(SnapshotProblem) -> StringPairs? {
        guard let value = optional(key) else { return nil }
        return try Self.stringPairs(value, "\(context).\(key)")
    }

    static func stringPairs(_ value: JSONValue, _ context: String) throws(SnapshotProblem) -> StringPairs {
        guard let items = value.arrayValue else { throw SnapshotProblem("\(context) must be an array of pairs") }
        var out: StringPairs = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let pair = item.arrayValue, pair.count == 2, let k = pair[0].stringValue, let v = pair[1].stringValue else {
                throw SnapshotProblem("\(context) must hold [\"key\",\"value\"] pairs")
            }
            out.append((k, v))
        }
        return out
    }

    /// Refuses fields nobody read (the parser already refuses repeated keys).
    func finish() throws(SnapshotProblem) {
        for (key, _) in pairs where !asked.contains(key) {
            throw SnapshotProblem("\(context) has a field this emulator does not know: \"\(key)\"")
        }
    }
}

/// String pairs as JSON.
func pairsJSON(_ pairs: StringPairs) -> JSONValue { .array(pairs.map { .array([.string($0.0), .string($0.1)]) }) }
