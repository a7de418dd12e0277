// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// A legacy `/fcm/send` request, read from JSON or from the plain-text form
/// (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/legacy.md).
package struct LegacyRequest: Sendable {
    package enum Recipients: Sendable {
        /// `to` a token, or `registration_ids` (results are positional).
        case tokens([String], multicast: Bool)
        case topic(String)
        case condition(TopicCondition)
        case notificationKey(String)
    }

    package var recipients: Recipients
    package var content: MessageContent
    package var dryRun: Bool
    /// Keys the reader did not know and ignored, as the legacy service did (`notification.` before
    /// a notification key); `notice` words them for the `accepted` event.
    package var ignoredKeys: [String] = []

    package init(recipients: Recipients, content: MessageContent, dryRun: Bool) {
        self.recipients = recipients
        self.content = content
        self.dryRun = dryRun
    }

    /// What the `accepted` event adds about the ignored keys (docs/legacy.md, "Unknown parameters").
    package var notice: String? { LegacyParameters.notice(ignored: ignoredKeys) }

    /// The refusal of this request for its web recipients, when one of its tokens is a web app's
    /// and the web notification names a URL that is not HTTPS (`LegacyPayload.webURLRefusal`).
    /// Topic, condition and group sends are answered before their recipients are known: they
    /// are not checked (docs/legacy.md).
    package func webRefusal(isWeb: (String) -> Bool) -> LegacyBadRequest? {
        guard case .tokens(let tokens, _) = recipients, let refusal = LegacyPayload.webURLRefusal(content) else { return nil }
        return tokens.contains(where: isWeb) ? refusal : nil
    }
}

/// A request the legacy service refuses as a whole: HTTP 400 with a plain-text line.
package struct LegacyBadRequest: Error, Sendable {
    package let text: String

    package init(text: String) { self.text = text }
}

/// Reads legacy JSON bodies (the legacy reference's downstream JSON): types are checked per field with the service's wording;
/// unknown fields are ignored, as the legacy service did, and named in `ignoredKeys`.
package enum LegacyJSONReader {
    static let maxRegistrationIds = 1000

    package static func read(_ body: [UInt8]) throws(LegacyBadRequest) -> LegacyRequest {
        try read(body, allowMulticast: true)
    }

    /// Reads a body; XMPP allows one recipient per stanza (`registration_ids` is not supported).
    package static func read(_ body: [UInt8], allowMulticast: Bool) throws(LegacyBadRequest) -> LegacyRequest {
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            let character = error.offset < body.count ? String(decoding: [body[error.offset]], as: UTF8.self) : "EOF"
            throw LegacyBadRequest(text: "JSON_PARSING_ERROR: Unexpected character (\(character)) at position \(error.offset).")
        }
        guard case .object = json else {
            throw LegacyBadRequest(
                text: "JSON_PARSING_ERROR: Unexpected character (\(String(decoding: body.prefix(1), as: UTF8.self))) at position 0.")
        }
        return try read(json, allowMulticast: allowMulticast)
    }

    /// Reads a request already parsed as a JSON object (CCS parses its payload once).
    package static func read(_ json: JSONValue, allowMulticast: Bool) throws(LegacyBadRequest) -> LegacyRequest {
        let f = LegacyFields(json)
        var content = MessageContent()
        content.collapseKey = try f.string("collapse_key")
        if let key = content.collapseKey, key.utf8.count > EmulatorSettings.maxCollapseKeyBytes {
            throw LegacyBadRequest(text: "InvalidParameters: \"collapse_key\" is longer than \(EmulatorSettings.maxCollapseKeyBytes) bytes")
        }
        if let priority = try f.string("priority") {
            switch priority {
            case "high", "10": content.priority = .high
            case "normal", "5": content.priority = .normal
            default: throw LegacyBadRequest(text: "Invalid value (\(priority)) for \"priority\": must be \"normal\" or \"high\"")
            }
        }
        content.contentAvailable = try f.bool("content_available") ?? false
        content.mutableContent = try f.bool("mutable_content") ?? false
        content.restrictedPackageName = try f.string("restricted_package_name")
        if let ttl = try f.integer("time_to_live") {
            guard (0...EmulatorSettings.maxTTLSeconds).contains(ttl) else {
                throw LegacyBadRequest(
                    text: "Invalid value (\(ttl)) for \"time_to_live\": must be between 0 and \(EmulatorSettings.maxTTLSeconds)")
            }
            content.ttlSeconds = ttl
        }
        content.deliveryReceiptRequested = try f.bool("delivery_receipt_requested") ?? false
        if let data = try f.object("data") {
            content.data = data.map { key, value in (key, value.stringValue ?? value.encoded()) }
            if let reserved = content.data.first(where: { LegacyPayload.isReserved($0.0) }) {
                throw LegacyBadRequest(text: "\"data\" key \"\(reserved.0)\" is a reserved keyword")
            }
        }
        if let notification = try f.object("notification") {
            try LegacyPayload.check(notification: notification)
            LegacyPayload.apply(notification: notification, to: &content)
        }
        // FCM counts what was sent, once: data and notification keys and values.
        let notificationSize = try f.object("notification").map { JSONValue.object($0).measuredSize } ?? 0
        content.measuredPayloadSize = content.data.reduce(notificationSize) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        let dryRun = try f.bool("dry_run") ?? false
        var request = LegacyRequest(recipients: try recipients(f, allowMulticast: allowMulticast), content: content, dryRun: dryRun)
        request.ignoredKeys =
            LegacyParameters.unknown(in: f.pairs.map(\.0), known: LegacyParameters.topLevel(multicast: allowMulticast))
            + LegacyParameters.unknown(
                in: (try f.object("notification") ?? []).map(\.0), known: LegacyParameters.notification, prefix: "notification.")
        return request
    }

    private static func recipients(_ f: LegacyFields, allowMulticast: Bool) throws(LegacyBadRequest) -> LegacyRequest.Recipients {
        let to = try f.string("to")
        let ids = allowMulticast ? try f.strings("registration_ids") : nil
        if to != nil, ids != nil { throw LegacyBadRequest(text: "Must use either \"registration_ids\" field or \"to\", not both") }
        if let ids {
            guard ids.count <= maxRegistrationIds else {
                throw LegacyBadRequest(text: "Number of messages on bulk (\(ids.count)) exceeds maximum allowed (\(maxRegistrationIds))")
            }
            guard !ids.isEmpty else { throw LegacyBadRequest(text: "Missing \"registration_ids\" field") }
            return .tokens(ids, multicast: true)
        }
        if let to {
            if to.hasPrefix("/topics/") { return .topic(String(to.dropFirst("/topics/".count))) }
            return .tokens([to], multicast: false)
        }
        if let condition = try f.string("condition") {
            // "Maximum two operators per topic message" (legacy reference).
            // Double quotes read as single ones, as the old Node SDK rewrote them.
            let normalized = condition.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "'")
            guard let parsed = try? TopicCondition.parse(normalized, limits: .legacy) else {
                // The condition is the peer's text: echo a bounded prefix of it.
                let shown = condition.utf8.count > 200 ? String(condition.prefix(200)) + "…" : condition
                throw LegacyBadRequest(text: "Invalid \"condition\" field: \(shown)")
            }
            return .condition(parsed)
        }
        if let key = try f.string("notification_key") { return .notificationKey(key) }
        // CCS has no `registration_ids`: its refusal names the field it reads (XMPP reference,
        // "Missing Registration Token": the token goes in `to`).
        throw LegacyBadRequest(text: allowMulticast ? "Missing \"registration_ids\" field" : "Missing \"to\" field")
    }
}

/// Typed access to a legacy JSON object, refusing wrong types as the service words it
/// (`Field "to" must be a JSON string: 123`).
package typealias LegacyFields = TypedFields<LegacyBadRequest>

extension TypedFields where Failure == LegacyBadRequest {
    package init(_ json: JSONValue) {
        self.init(pairs: json.objectValue ?? []) { key, expected, got in
            let what: String =
                switch expected {
                case .string: "string"
                case .boolean: "boolean"
                case .number: "number"
                case .array: "array"
                case .arrayOfStrings: "array of strings"
                case .object: "object"
                }
            return LegacyBadRequest(text: "Field \"\(key)\" must be a JSON \(what): \(got.encoded())")
        }
    }
}

extension LegacyRequest {
    /// The tokens of a token send, or none.
    package var tokensOrEmpty: [String] {
        if case .tokens(let tokens, _) = recipients { return tokens }
        return []
    }
}
