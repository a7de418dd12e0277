// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// The bridge between the core's plain values and JSON, for every front that speaks JSON. The
/// trees are as deep as the JSON parser allows (its nesting cap), so plain recursion is bounded.
extension PayloadValue {
    /// The value as the sender wrote it in JSON.
    package init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let text): self = .number(text)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(PayloadValue.init))
        case .object(let pairs): self = .object(pairs.map { ($0.0, PayloadValue($0.1)) })
        }
    }
}

extension JSONValue {
    /// The value as JSON, numbers in the text they were written with.
    package init(_ payload: PayloadValue) {
        switch payload {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let text): self = .number(text)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let pairs): self = .object(pairs.map { ($0.0, JSONValue($0.1)) })
        }
    }
}

extension Sequence where Element == (String, JSONValue) {
    /// Object pairs as the core's values.
    package var payloadPairs: [(String, PayloadValue)] { map { ($0.0, PayloadValue($0.1)) } }
}
