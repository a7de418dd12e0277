// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat

/// CCS messages on an established connection (FCM-WIRE.md §5.3–5.5): a downstream message goes
/// into the engine and gets exactly one ack or nack; acks from the app server are taken; a message
/// that cannot be identified gets a stanza error.
struct CCSHandler: Sendable {
    let emulator: Emulator
    /// Nacks and control messages in the prefixed `<data:gcm>` form, as the reference shows them;
    /// off, everything uses `<gcm xmlns=…>` (xmpppy-based clients look for `gcm` only, §5.3).
    let prefixedForm: Bool

    func handle(_ stanza: XMLElement, sender: String, jid: String, connection: Int?, draining: Bool) -> [String] {
        guard let payload = stanza.child("gcm") else {
            return [Self.stanzaError(stanza, jid: jid, "InvalidJson: JSON_PARSING_ERROR : the message has no gcm payload\n")]
        }
        guard let json = try? JSONParser.parse(Array(payload.text.utf8)), case .object = json else {
            return [Self.stanzaError(stanza, jid: jid, "InvalidJson: JSON_PARSING_ERROR : Unexpected character in the payload\n")]
        }
        if let type = json["message_type"]?.stringValue {
            return acknowledgement(json, type: type, connection: connection)
        }
        guard let messageId = json["message_id"]?.stringValue, !messageId.isEmpty else {
            return [Self.stanzaError(stanza, jid: jid, "InvalidJson: JSON_PARSING_ERROR : Missing Required Field: message_id\n")]
        }
        let to = json["to"]?.stringValue ?? json["condition"]?.stringValue ?? ""
        if draining {
            return [nack(messageId: messageId, from: to, error: "CONNECTION_DRAINING", description: "Connection is draining; send on another connection")]
        }
        let request: LegacyRequest
        do {
            request = try LegacyJSONReader.read(Array(payload.text.utf8), allowMulticast: false)
        } catch {
            return [nack(messageId: messageId, from: to, error: "INVALID_JSON", description: error.text)]
        }
        var content = request.content
        content.clientMessageId = messageId
        let target: MessageTarget
        switch request.recipients {
        case .tokens(let tokens, _):
            let token = tokens.first ?? ""
            let isGroup = (try? emulator.groups(projectId: (try? emulator.project(sender).id) ?? sender))?.contains { $0.notificationKey == token } ?? false
            target = isGroup ? .notificationKey(token) : .token(token)
        case .topic(let name): target = .topic(name)
        case .condition(let condition): target = .condition(condition)
        case .notificationKey(let key): target = .notificationKey(key)
        }
        do {
            let outcome = try emulator.send(SendRequest(target: target, content: content, validateOnly: request.dryRun, api: .xmpp), from: sender)
            var ack: [(String, JSONValue)] = [("from", .string(to)), ("message_id", .string(messageId)), ("message_type", .string("ack"))]
            if let canonical = outcome.canonicalToken { ack.append(("registration_id", .string(canonical))) }
            return [Self.message(.object(ack), prefixed: false)]
        } catch {
            return [nack(messageId: messageId, from: to, error: Self.nackCode(error.code), description: error.message)]
        }
    }

    /// Whether a drain fault rule fires for this downstream stanza.
    func drainFault(_ stanza: XMLElement, sender: String) -> Bool {
        guard emulator.hasTransportFaults, let project = try? emulator.project(sender) else { return false }
        let context = FaultContext(api: .xmpp, route: "message", projects: [project.id, project.number], text: stanza.child("gcm")?.text ?? "")
        return emulator.transportFault(context) == .drain
    }

    /// Acks and nacks from the app server, for upstream messages and receipts; a malformed one
    /// is nacked BAD_ACK (§5.5).
    private func acknowledgement(_ json: JSONValue, type: String, connection: Int?) -> [String] {
        let messageId = json["message_id"]?.stringValue ?? ""
        guard type == "ack" || type == "nack", !messageId.isEmpty, json["to"]?.stringValue != nil else {
            return [nack(messageId: messageId, from: json["to"]?.stringValue ?? "", error: "BAD_ACK", description: "Invalid ack: message_id, to and message_type ack are required")]
        }
        // An ack is valid only on the connection that delivered the message; others change nothing.
        if let connection { _ = emulator.ccsAck(connection, messageId: messageId) }
        return []
    }

    /// The reference's nack codes for the core's errors (§5.5).
    static func nackCode(_ code: FCMError.Code) -> String {
        switch code {
        case .invalidRegistration, .senderIdMismatch: return "BAD_REGISTRATION"
        case .unregistered, .notFound: return "DEVICE_UNREGISTERED"
        case .invalidArgument, .messageTooBig, .invalidDataKey, .invalidTTL, .invalidPackageName: return "INVALID_JSON"
        case .deviceMessageRateExceeded: return "DEVICE_MESSAGE_RATE_EXCEEDED"
        case .topicsMessageRateExceeded: return "TOPICS_MESSAGE_RATE_EXCEEDED"
        case .unavailable: return "SERVICE_UNAVAILABLE"
        case .thirdPartyAuthError: return "INVALID_APNS_CREDENTIAL"
        case .internalError, .conflict, .tooManyTopics: return "INTERNAL_SERVER_ERROR"
        }
    }

    func nack(messageId: String, from: String, error: String, description: String) -> String {
        Self.message(.object([
            ("message_type", .string("nack")), ("message_id", .string(messageId)), ("from", .string(from)),
            ("error", .string(error)), ("error_description", .string(description)),
        ]), prefixed: prefixedForm)
    }

    /// A CCS message: `<gcm xmlns=…>` for acks, upstream and receipts; the prefixed
    /// `<data:gcm xmlns:data=…>` for nacks and control, as the reference shows them (§5.3).
    static func message(_ json: JSONValue, prefixed: Bool) -> String {
        let text = XMLEscaping.escape(json.encoded(), quotes: false)
        if prefixed { return "<message><data:gcm xmlns:data=\"google:mobile:data\">\(text)</data:gcm></message>" }
        return "<message id=\"\"><gcm xmlns=\"google:mobile:data\">\(text)</gcm></message>"
    }

    static func stanzaError(_ stanza: XMLElement, jid: String, _ text: String) -> String {
        var echo = stanza
        echo.attributes = [("id", stanza.attribute("id") ?? ""), ("type", "error"), ("to", jid)]
        let error = XMLElement(name: "error", attributes: [("code", "400"), ("type", "modify")], children: [
            XMLElement(name: "bad-request", attributes: [("xmlns", "urn:ietf:params:xml:ns:xmpp-stanzas")]),
            XMLElement(name: "text", attributes: [("xmlns", "urn:ietf:params:xml:ns:xmpp-stanzas")], text: text),
        ])
        echo.children.append(error)
        return echo.xml
    }
}
