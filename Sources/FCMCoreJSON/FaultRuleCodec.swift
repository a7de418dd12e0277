// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// Fault rules as JSON (the control API) or YAML read into JSON (`serve --faults`):
///
///     {"id": "outage", "match": {"api": "v1", "route": "messages:send", "every": 2, "count": 3},
///      "action": {"status": 503, "retryAfter": "10s"}}
///
/// Actions: `{"error": "UNREGISTERED"}` (FCM v1, legacy or emulator names), `{"status": 503,
/// "retryAfter": 10}`, `{"latency": "2s"}`, `{"reset": true}`, `{"html502": true}`, `{"drain": true}`
/// (XMPP: CONNECTION_DRAINING), `{"deliverThenFail": true, "status": 503}` (or `"reset": true`:
/// the message is delivered, then the answer fails), `{"goaway": "graceful"}` or
/// `{"goaway": "ENHANCE_YOUR_CALM", "debugData": "too_many_pings"}` (an HTTP/2 GOAWAY),
/// `{"slowHandshake": "2s"}` (a new TLS connection's handshake waits), `{"rstStream": "REFUSED_STREAM"}`
/// (an HTTP/2 RST_STREAM on the call's stream alone), `{"hold": true}` (never answered).
package enum FaultRuleCodec {
    /// Error names users write, from every API's vocabulary, to the core's codes.
    static let errorNames: [String: FCMError.Code] = [
        "UNREGISTERED": .unregistered, "NotRegistered": .unregistered, "DEVICE_UNREGISTERED": .unregistered,
        "SENDER_ID_MISMATCH": .senderIdMismatch, "MismatchSenderId": .senderIdMismatch,
        "QUOTA_EXCEEDED": .deviceMessageRateExceeded, "DeviceMessageRateExceeded": .deviceMessageRateExceeded,
        "DEVICE_MESSAGE_RATE_EXCEEDED": .deviceMessageRateExceeded,
        "TopicsMessageRateExceeded": .topicsMessageRateExceeded, "TOPICS_MESSAGE_RATE_EXCEEDED": .topicsMessageRateExceeded,
        "UNAVAILABLE": .unavailable, "Unavailable": .unavailable, "SERVICE_UNAVAILABLE": .unavailable,
        "INTERNAL": .internalError, "InternalServerError": .internalError, "INTERNAL_SERVER_ERROR": .internalError,
        "INVALID_ARGUMENT": .invalidArgument, "InvalidRegistration": .invalidRegistration, "BAD_REGISTRATION": .invalidRegistration,
        "InvalidPackageName": .invalidPackageName, "MessageTooBig": .messageTooBig, "InvalidDataKey": .invalidDataKey,
        "InvalidTtl": .invalidTTL, "THIRD_PARTY_AUTH_ERROR": .thirdPartyAuthError, "APNS_AUTH_ERROR": .thirdPartyAuthError,
        "InvalidApnsCredential": .thirdPartyAuthError, "INVALID_APNS_CREDENTIAL": .thirdPartyAuthError,
        "AUTHENTICATION_FAILED": .thirdPartyAuthError,
    ]

    /// Bytes (UTF-8) of each text field of a rule (`id`, `match.route`, `match.target`, …): rules are
    /// listed, exported and matched on every request, so none may be as long as the body allows.
    /// Routes, ids and tokens are far shorter (an FCM token is about 160 bytes).
    package static let maxTextBytes = 1024

    package static func decode(_ json: JSONValue, defaultId: String) throws(FCMError) -> FaultRule {
        guard case .object = json else { throw FCMError(.invalidArgument, "A fault rule is a JSON object", field: "faults") }
        try only(json, ["id", "match", "action"], at: "rule")
        let id = try string(json, "id") ?? defaultId
        var match = FaultRule.Match()
        if let m = json["match"] {
            try only(
                m, ["api", "route", "project", "target", "device", "nth", "every", "probability", "from", "until", "count"], at: "match")
            if let api = m["api"] {
                guard let text = api.stringValue, let value = FaultAPI(rawValue: text) else {
                    throw FCMError(
                        .invalidArgument, "match.api must be one of: \(FaultAPI.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: "match.api")
                }
                match.api = value
            }
            match.route = try string(m, "route", at: "match")
            match.project = try string(m, "project", at: "match")
            match.target = try string(m, "target", at: "match")
            match.device = try string(m, "device", at: "match")
            match.nth = try positive(m, "nth")
            match.every = try positive(m, "every")
            match.count = try positive(m, "count")
            if let p = m["probability"] {
                guard let value = p.doubleValue, (0...1).contains(value) else {
                    throw FCMError(.invalidArgument, "match.probability must be a number from 0 to 1", field: "match.probability")
                }
                match.probability = value
            }
            match.from = try instant(m, "from")
            match.until = try instant(m, "until")
        }
        guard let a = json["action"] else { throw FCMError(.invalidArgument, "A fault rule needs an action", field: "action") }
        try only(
            a, ["error", "status", "retryAfter", "latency", "reset", "html502", "drain", "deliverThenFail", "goaway", "debugData",
                "slowHandshake", "rstStream", "hold"],
            at: "action")
        let retryAfter = try seconds(a, "retryAfter")
        let action: FaultRule.Action
        if a["deliverThenFail"]?.boolValue == true {
            action = .deliverThenFail(status: try deliverThenFailStatus(a), retryAfterSeconds: retryAfter)
        } else if let name = try string(a, "error", at: "action") {
            guard let code = errorNames[name] ?? FCMError.Code(rawValue: name) else {
                throw FCMError(
                    .invalidArgument, "Unknown error '\(name)'; use an FCM error code such as UNAVAILABLE, UNREGISTERED, QUOTA_EXCEEDED",
                    field: "action.error")
            }
            action = .error(code, retryAfterSeconds: retryAfter)
        } else if let status = a["status"] {
            guard let code = status.int64Value, (400...599).contains(code) else {
                throw FCMError(.invalidArgument, "action.status must be an HTTP status from 400 to 599", field: "action.status")
            }
            action = .status(Int(code), retryAfterSeconds: retryAfter)
        } else if let latency = a["latency"] {
            guard let millis = latency.int64Value ?? latency.stringValue.flatMap(DurationText.millis), millis >= 0, millis <= 600_000 else {
                throw FCMError(.invalidArgument, "action.latency must be a duration up to 10m, such as \"2s\"", field: "action.latency")
            }
            action = .latency(millis: millis)
        } else if a["reset"]?.boolValue == true {
            action = .reset
        } else if a["html502"]?.boolValue == true {
            action = .html502
        } else if a["drain"]?.boolValue == true {
            action = .drain
        } else if let name = try string(a, "goaway", at: "action") {
            guard let code = name == "graceful" ? 0 : FaultRule.http2ErrorCodes.first(where: { $0.name == name })?.code else {
                throw FCMError(
                    .invalidArgument,
                    "action.goaway must be graceful or an HTTP/2 error code (RFC 9113 §7) such as PROTOCOL_ERROR, ENHANCE_YOUR_CALM",
                    field: "action.goaway")
            }
            action = .goAway(errorCode: code, debugData: try string(a, "debugData", at: "action"))
        } else if let delay = a["slowHandshake"] {
            guard let millis = delay.int64Value ?? delay.stringValue.flatMap(DurationText.millis), millis >= 0, millis <= 600_000 else {
                throw FCMError(
                    .invalidArgument, "action.slowHandshake must be a duration up to 10m, such as \"2s\"", field: "action.slowHandshake")
            }
            action = .slowHandshake(millis: millis)
        } else if let name = try string(a, "rstStream", at: "action") {
            guard let code = FaultRule.http2ErrorCodes.first(where: { $0.name == name })?.code else {
                throw FCMError(
                    .invalidArgument, "action.rstStream must be an HTTP/2 error code (RFC 9113 §7) such as REFUSED_STREAM, CANCEL, INTERNAL_ERROR",
                    field: "action.rstStream")
            }
            action = .rstStream(errorCode: code)
        } else if a["hold"]?.boolValue == true {
            action = .hold
        } else {
            throw FCMError(
                .invalidArgument,
                "action must give one of: error, status, latency, reset, html502, drain, deliverThenFail, goaway, slowHandshake, rstStream,"
                    + " hold",
                field: "action")
        }
        if a["debugData"] != nil, a["goaway"] == nil {
            throw FCMError(.invalidArgument, "action.debugData goes with goaway", field: "action.debugData")
        }
        try checkMatch(match, for: action)
        return FaultRule(id: id, match: match, action: action, posted: posted(json))
    }

    /// `"status": 503` (the default) or `"reset": true` beside `"deliverThenFail": true`.
    private static func deliverThenFailStatus(_ a: JSONValue) throws(FCMError) -> Int? {
        if a["reset"]?.boolValue == true { return nil }
        guard let status = a["status"] else { return 503 }
        guard let code = status.int64Value, (400...599).contains(code) else {
            throw FCMError(.invalidArgument, "action.status must be an HTTP status from 400 to 599", field: "action.status")
        }
        return Int(code)
    }

    /// A failed delivery's answer is HTTP's: XMPP acks every message it accepts.
    private static func checkMatch(_ match: FaultRule.Match, for action: FaultRule.Action) throws(FCMError) {
        switch action {
        case .deliverThenFail where match.api == .xmpp:
            throw FCMError(.invalidArgument, "deliverThenFail applies to HTTP calls, not XMPP", field: "match.api")
        case .goAway where match.api == .xmpp:
            throw FCMError(.invalidArgument, "goaway applies to HTTP calls, not XMPP", field: "match.api")
        case .rstStream where match.api == .xmpp, .hold where match.api == .xmpp:
            throw FCMError(.invalidArgument, "rstStream and hold apply to HTTP calls, not XMPP", field: "match.api")
        case .slowHandshake:
            // The handshake comes before any request, so only the fields that count connections apply.
            let named: [(String, Bool)] = [
                ("api", match.api != nil), ("route", match.route != nil), ("project", match.project != nil),
                ("target", match.target != nil), ("device", match.device != nil),
            ]
            if let (field, _) = named.first(where: \.1) {
                throw FCMError(
                    .invalidArgument,
                    "slowHandshake matches new TLS connections to the HTTPS port, before any request: match.\(field) cannot apply"
                        + " (use nth, every, probability, from, until, count)",
                    field: "match.\(field)")
            }
        default:
            break
        }
    }

    package static func encode(_ rule: FaultRule) -> JSONValue {
        if let posted = encodePosted(rule) { return posted }
        let m = rule.match
        let match = JSONValue.object(omittingNils: [
            ("api", m.api.map { .string($0.rawValue) }), ("route", m.route.map(JSONValue.string)),
            ("project", m.project.map(JSONValue.string)), ("target", m.target.map(JSONValue.string)),
            ("device", m.device.map(JSONValue.string)), ("nth", m.nth.map(JSONValue.int)), ("every", m.every.map(JSONValue.int)),
            ("probability", m.probability.map(JSONValue.double)), ("from", m.from.map { .string($0.iso8601) }),
            ("until", m.until.map { .string($0.iso8601) }), ("count", m.count.map(JSONValue.int)),
        ])
        let action: JSONValue
        switch rule.action {
        case .error(let code, let retry):
            action = .object(omittingNils: [("error", .string(code.rawValue)), ("retryAfter", retry.map(JSONValue.int))])
        case .status(let status, let retry):
            action = .object(omittingNils: [("status", .int(status)), ("retryAfter", retry.map(JSONValue.int))])
        case .latency(let millis): action = .object([("latency", .string("\(millis)ms"))])
        case .reset: action = .object([("reset", .bool(true))])
        case .html502: action = .object([("html502", .bool(true))])
        case .drain: action = .object([("drain", .bool(true))])
        case .goAway(let code, let debug):
            action = .object(omittingNils: [("goaway", .string(FaultRule.goAwayName(code))), ("debugData", debug.map(JSONValue.string))])
        case .slowHandshake(let millis): action = .object([("slowHandshake", .string("\(millis)ms"))])
        case .rstStream(let code): action = .object([("rstStream", .string(FaultRule.http2ErrorName(code)))])
        case .hold: action = .object([("hold", .bool(true))])
        case .deliverThenFail(let status, let retry):
            action = .object(omittingNils: [
                ("deliverThenFail", .bool(true)), ("status", status.map(JSONValue.int)), ("reset", status == nil ? .bool(true) : nil),
                ("retryAfter", retry.map(JSONValue.int)),
            ])
        }
        return .object([("id", .string(rule.id)), ("match", match), ("action", action)])
    }

    private static func only(_ json: JSONValue, _ allowed: Set<String>, at: String) throws(FCMError) {
        guard let pairs = json.objectValue else { throw FCMError(.invalidArgument, "\(at) must be an object", field: at) }
        for (key, _) in pairs where !allowed.contains(key) {
            throw FCMError(
                .invalidArgument, "Unknown field '\(key)' in \(at); expected one of: \(allowed.sorted().joined(separator: ", "))",
                field: "\(at).\(key)")
        }
    }

    /// A text field of at most `maxTextBytes`; `at` is the object holding it, for the error's field.
    private static func string(_ json: JSONValue, _ key: String, at: String? = nil) throws(FCMError) -> String? {
        guard let v = json[key] else { return nil }
        let field = at.map { "\($0).\(key)" } ?? key
        guard let s = v.stringValue else { throw FCMError(.invalidArgument, "\(field) must be a string", field: field) }
        guard s.utf8.count <= maxTextBytes else {
            throw FCMError(.invalidArgument, "\(field) must be at most \(maxTextBytes) bytes, not \(s.utf8.count)", field: field)
        }
        return s
    }

    private static func positive(_ json: JSONValue, _ key: String) throws(FCMError) -> Int? {
        guard let v = json[key] else { return nil }
        guard let n = v.int64Value, n >= 1, n <= 1_000_000_000 else {
            throw FCMError(.invalidArgument, "\(key) must be a whole number ≥ 1", field: key)
        }
        return Int(n)
    }

    private static func seconds(_ json: JSONValue, _ key: String) throws(FCMError) -> Int64? {
        guard let v = json[key] else { return nil }
        if let n = v.int64Value, n >= 0 { return n }
        if let text = v.stringValue, let ms = DurationText.millis(text) { return (ms + 999) / 1000 }
        throw FCMError(.invalidArgument, "\(key) must be seconds or a duration such as \"10s\"", field: key)
    }

    private static func instant(_ json: JSONValue, _ key: String) throws(FCMError) -> Instant? {
        guard let text = try string(json, key) else { return nil }
        guard let instant = Instant(iso8601: text) else { throw FCMError(.invalidArgument, "\(key) must be an RFC 3339 time", field: key) }
        return instant
    }
}
