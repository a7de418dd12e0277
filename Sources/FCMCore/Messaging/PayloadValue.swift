// SPDX-License-Identifier: Apache-2.0

/// A value an app receives as its sender wrote it: the free-form parts of a message (`apns.payload`,
/// Android and web notification fields: `Struct`s in the v1 `Message` reference) and what the rendering of a
/// delivery hands the app. The core keeps it as plain data and never encodes it: each front
/// converts it from and to its own wire format (FCMCore knows no wire format: Sources/README.md).
public indirect enum PayloadValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as the literal text it was written with, so that `12` and `12.0` stay apart.
    case number(String)
    case string(String)
    case array([PayloadValue])
    /// Key/value pairs in the order they were written.
    case object([(String, PayloadValue)])

    public static func == (lhs: PayloadValue, rhs: PayloadValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b || (Double(a) != nil && Double(a) == Double(b))
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// A number from an integer.
    package static func int<I: BinaryInteger>(_ value: I) -> PayloadValue { .number(String(value)) }

    /// An object from pairs, dropping the pairs whose value is nil.
    package static func object(omittingNils pairs: [(String, PayloadValue?)]) -> PayloadValue {
        .object(pairs.compactMap { key, value in value.map { (key, $0) } })
    }

    /// The value of `key` when this is an object.
    package subscript(key: String) -> PayloadValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    package var objectValue: [(String, PayloadValue)]? {
        if case .object(let pairs) = self { return pairs }
        return nil
    }

    /// A number that is a whole Int64 (`1`, `1.0`, `1e0`).
    package var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        if let exact = Int64(text) { return exact }
        guard let d = Double(text), d.isFinite, d == d.rounded(), abs(d) < 9.2e18 else { return nil }
        return Int64(d)
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Bytes counted against the payload limit. FCM counts "keys and values" (docs/simulation.md,
    /// "Payload size"; https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode), so this
    /// is the UTF-8 length of every key and every scalar written, without the punctuation of any
    /// one encoding. Iterative: a peer decides how deep the value is.
    package var measuredSize: Int {
        var size = 0
        var pending: [PayloadValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .null: size += 4
            case .bool(let b): size += b ? 4 : 5
            case .number(let text): size += text.utf8.count
            case .string(let s): size += s.utf8.count
            case .array(let items): pending.append(contentsOf: items)
            case .object(let pairs):
                for (key, item) in pairs {
                    size += key.utf8.count
                    pending.append(item)
                }
            }
        }
        return size
    }
}
