// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// The token, FID, topic or condition a refused request's body names, for refusals whose front
/// noted none (a 401 or 403 answered before the body was read, an access-policy or injected
/// status): the `refused` event then names it, a `token=` query of the event log finds it, and the
/// device that holds the token keeps it among its outcomes (docs/control-api.md, "Outcomes").
enum RefusalTarget {
    /// Bodies larger than this are not parsed again for a target: the body is already in memory
    /// (requests are buffered whole before a handler runs), but a refusal of a huge body must not
    /// cost a second full parse; an FCM message is at most 4 KiB of payload.
    static let maxParsedBytes = 64 << 10

    /// What the body names, written as `MessageTarget.description` writes it (`fid:…`,
    /// `/topics/…`), cut to `Refusal.maxTextBytes`; nil when the body is not a JSON object or
    /// names nothing. v1: `message.token`, `message.fid`, `message.topic`, `message.condition`;
    /// legacy: `to`, else the first of `registration_ids`.
    static func read(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count <= maxParsedBytes, let first = body.first(where: { !isSpace($0) }), first == UInt8(ascii: "{"),
            let json = try? JSONParser.parse(body)
        else { return nil }
        return named(by: json).map { Refusal.truncated($0) }
    }

    private static func named(by json: JSONValue) -> String? {
        if let message = json["message"] {
            let fields: [(String, String)] = [("token", ""), ("fid", "fid:"), ("topic", "/topics/"), ("condition", "")]
            for (key, prefix) in fields {
                if let value = message[key]?.stringValue, !value.isEmpty { return prefix + value }
            }
            return nil
        }
        if let to = json["to"]?.stringValue, !to.isEmpty { return to }
        return json["registration_ids"]?.arrayValue?.first?.stringValue
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
