// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat

/// CCS messages on an established connection (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref;
/// docs/xmpp.md): a downstream message goes
/// into the engine and gets exactly one ack or nack; acks from the app server are taken; a message
/// that cannot be identified gets a stanza error. Each stanza's JSON is parsed once.
struct CCSHandler: Sendable {
    let emulator: Emulator
    /// Nacks and control messages in the prefixed `<data:gcm>` form, as the reference shows them;
    /// off, everything uses `<gcm xmlns=…>` (xmpppy-based clients look for `gcm` only).
    let prefixedForm: Bool

    /// The JSON payload of a `<message>`, or the stanza error that answers a message without one.
    enum Payload {
        case json(JSONValue)
        case refused(XMPPOutput)
    }

    static func payload(of stanza: XMPPElement, jid: String) -> Payload {
        guard let gcm = stanza.child("gcm") else {
            return .refused(.stanzaError(stanza, to: jid, text: Self.parsingError("the message has no gcm payload")))
        }
        guard let json = try? JSONParser.parse(Array(gcm.text.utf8)), case .object = json else {
            return .refused(.stanzaError(stanza, to: jid, text: Self.parsingError("Unexpected character in the payload")))
        }
        return .json(json)
    }

    /// A stanza error's text, as in the XMPP reference's example: `InvalidJson: JSON_PARSING_ERROR : <why>`.
    static func parsingError(_ why: String) -> String { "InvalidJson: JSON_PARSING_ERROR : \(why)\n" }

    /// A stanza error as a refusal: the app server sees `JSON_PARSING_ERROR` and why.
    static func parsingRefusal(_ text: String, sender: String) -> Refusal {
        var why = text.split(separator: " : ", maxSplits: 1).last.map(String.init) ?? text
        while why.hasSuffix("\n") { why.removeLast() }
        return Refusal(api: "xmpp", project: sender, status: nil, code: "JSON_PARSING_ERROR", detail: why)
    }

    /// Answers one CCS message from the app server on connection `connection` of `sender`; each
    /// nack and stanza error is also added to `refusals`, for the event log and the transport's log.
    func handle(
        _ json: JSONValue, stanza: XMPPElement, sender: String, jid: String, connection: Int?, draining: Bool,
        refusals: inout [Refusal]
    ) -> [XMPPOutput] {
        let outputs = handle(json, stanza: stanza, sender: sender, jid: jid, connection: connection, draining: draining)
        for output in outputs {
            switch output {
            case .ccs(let payload, _) where payload["message_type"]?.stringValue == "nack":
                refusals.append(
                    Refusal(
                        api: "xmpp", project: sender, status: nil, code: payload["error"]?.stringValue ?? "",
                        target: payload["from"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                        detail: payload["error_description"]?.stringValue ?? ""))
            case .stanzaError(_, _, let text):
                refusals.append(Self.parsingRefusal(text, sender: sender))
            default: break
            }
        }
        return outputs
    }

    private func handle(_ json: JSONValue, stanza: XMPPElement, sender: String, jid: String, connection: Int?, draining: Bool) -> [XMPPOutput] {
        if let type = json["message_type"]?.stringValue {
            return acknowledgement(json, type: type, connection: connection)
        }
        guard let messageId = json["message_id"]?.stringValue, !messageId.isEmpty else {
            return [.stanzaError(stanza, to: jid, text: Self.parsingError("Missing Required Field: message_id"))]
        }
        guard messageId.utf8.count <= EmulatorSettings.maxClientMessageIdBytes else {
            let limit = EmulatorSettings.maxClientMessageIdBytes
            return [.stanzaError(stanza, to: jid, text: Self.parsingError("message_id is longer than \(limit) bytes"))]
        }
        let to = json["to"]?.stringValue ?? json["condition"]?.stringValue ?? ""
        if draining {
            return [
                nack(
                    messageId: messageId, from: to, error: "CONNECTION_DRAINING",
                    description: "Connection is draining; send on another connection")
            ]
        }
        let request: LegacyRequest
        do {
            request = try LegacyJSONReader.read(json, allowMulticast: false)
        } catch {
            return [nack(messageId: messageId, from: to, error: "INVALID_JSON", description: error.text)]
        }
        if let refusal = request.webRefusal(isWeb: { emulator.device(token: $0)?.platform == .web }) {
            return [nack(messageId: messageId, from: to, error: "INVALID_JSON", description: refusal.text)]
        }
        var content = request.content
        content.clientMessageId = messageId
        let target: MessageTarget
        var lookup = SendRequest.GroupLookup.none
        switch request.recipients {
        case .tokens(let tokens, _):
            let token = tokens.first ?? ""
            // An empty `to` is a missing registration token, which CCS answers INVALID_JSON ("Check
            // that the request contains a registration token (in the to field)", XMPP reference,
            // https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref), as legacy HTTP
            // answers it MissingRegistration, not a malformed token (BAD_REGISTRATION).
            guard !token.isEmpty else {
                return [nack(messageId: messageId, from: to, error: "INVALID_JSON", description: "Missing registration token in \"to\"")]
            }
            // `to` takes a token or a device group's key, told apart inside the send.
            target = .token(token)
            lookup = .tokenOrGroup
        case .topic(let name): target = .topic(name)
        case .condition(let condition): target = .condition(condition)
        case .notificationKey(let key): target = .notificationKey(key)
        }
        do {
            var send = SendRequest(target: target, content: content, validateOnly: request.dryRun, api: .xmpp, groupLookup: lookup)
            send.notice = request.notice
            let outcome = try emulator.send(send, from: sender)
            return [.ccs(CCSPayloads.ack(messageId: messageId, from: to, canonicalToken: outcome.canonicalToken), prefixed: false)]
        } catch {
            return [nack(messageId: messageId, from: to, error: Self.nackCode(error), description: error.message)]
        }
    }

    /// Whether a drain fault rule fires for this downstream stanza.
    func drainFault(_ stanza: XMPPElement, sender: String) -> Bool {
        guard emulator.hasTransportFaults, let project = try? emulator.project(sender) else { return false }
        let context = FaultContext(
            api: .xmpp, route: "message", projects: [project.id, project.number], text: stanza.child("gcm")?.text ?? "")
        return emulator.transportFault(context) == .drain
    }

    /// Acks and nacks from the app server, for upstream messages and receipts; a malformed one
    /// is nacked BAD_ACK (the XMPP reference's error table).
    private func acknowledgement(_ json: JSONValue, type: String, connection: Int?) -> [XMPPOutput] {
        let messageId = json["message_id"]?.stringValue ?? ""
        guard type == "ack" || type == "nack", !messageId.isEmpty, json["to"]?.stringValue != nil else {
            let description = "Invalid ack: message_id, to and message_type ack are required"
            return [nack(messageId: messageId, from: json["to"]?.stringValue ?? "", error: "BAD_ACK", description: description)]
        }
        // An ack is valid only on the connection that delivered the message; others change nothing.
        if let connection { _ = emulator.ccsAck(connection, messageId: messageId) }
        return []
    }

    /// The reference's nack codes for the core's errors (the error table of
    /// https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref, which has its own SENDER_ID_MISMATCH).
    static func nackCode(_ error: FCMError) -> String {
        switch error.code {
        case .invalidRegistration: return error.reason == .apnsRegistration ? "INVALID_JSON" : "BAD_REGISTRATION"
        case .senderIdMismatch: return "SENDER_ID_MISMATCH"
        case .unregistered, .notFound: return "DEVICE_UNREGISTERED"
        case .invalidArgument, .messageTooBig, .invalidDataKey, .invalidTTL, .invalidPackageName: return "INVALID_JSON"
        case .deviceMessageRateExceeded: return "DEVICE_MESSAGE_RATE_EXCEEDED"
        case .topicsMessageRateExceeded: return "TOPICS_MESSAGE_RATE_EXCEEDED"
        case .unavailable: return "SERVICE_UNAVAILABLE"
        case .thirdPartyAuthError: return error.reason == .webPushCredentials ? "AUTHENTICATION_FAILED" : "INVALID_APNS_CREDENTIAL"
        case .internalError, .conflict, .tooManyTopics: return "INTERNAL_SERVER_ERROR"
        }
    }

    private func nack(messageId: String, from: String, error: String, description: String) -> XMPPOutput {
        .ccs(CCSPayloads.nack(messageId: messageId, from: from, error: error, description: description), prefixed: prefixedForm)
    }
}
