// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// A rule answers in its author's words: `GET /faults` gives back the `match`
/// and `action` as posted (`"error": "QUOTA_EXCEEDED"`, `"retryAfter": "10s"`), and the
/// `faultInjected` event reads `rule r1: status 503, retryAfter 10s`.
extension FaultRuleCodec {
    /// What a decoded rule keeps of its JSON: everything but the id, which stays the rule's own.
    static func posted(_ json: JSONValue) -> FaultRule.Posted {
        let pairs = (json.objectValue ?? []).filter { $0.0 == "match" || $0.0 == "action" }
        let action = json["action"]?.objectValue ?? []
        return FaultRule.Posted(json: JSONValue.object(pairs).encoded(), summary: summary(action))
    }

    /// `status 503, retryAfter 10s`: each action field as `name value`, a `true` flag as its name;
    /// bare numbers of seconds (`retryAfter`) and milliseconds (`latency`, `slowHandshake`) get their unit.
    static func summary(_ action: [(String, JSONValue)]) -> String {
        action.map { key, value in
            switch value {
            case .bool(true): return key
            case .string(let text): return "\(key) \(text)"
            default:
                let text = value.encoded()
                guard value.int64Value != nil else { return "\(key) \(text)" }
                switch key {
                case "retryAfter": return "\(key) \(text)s"
                case "latency", "slowHandshake": return "\(key) \(text)ms"
                default: return "\(key) \(text)"
                }
            }
        }.joined(separator: ", ")
    }

    /// The rule as posted, with its id first; nil for a rule made in code.
    static func encodePosted(_ rule: FaultRule) -> JSONValue? {
        guard let posted = rule.posted, case .object(let pairs)? = try? JSONParser.parse(posted.json) else { return nil }
        return .object([("id", .string(rule.id))] + pairs)
    }
}
