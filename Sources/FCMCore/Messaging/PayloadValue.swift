// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// A value an app receives as its sender wrote it: the free-form parts of a message (`apns.payload`,
/// Android and web notification fields: `Struct`s in the v1 `Message` reference) and what the
/// rendering of a delivery hands the app. The same ordered tree as the JSON fronts read, numbers
/// in the text they were written with; the core keeps it as plain data and never parses or
/// encodes it: each front converts its own wire format (Sources/README.md).
public typealias PayloadValue = JSONValue

extension JSONValue {
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
