// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Foundation

/// One CCS connection's negotiation and stanza routing, as a state machine: each stream event
/// returns what to write and whether to close (STYLE-ANCHORS.md: state machines apart from I/O).
/// Byte-level exchange: FCM-WIRE.md §5.2.
public struct XMPPSession {
    public enum State: Equatable, Sendable {
        case awaitingStream
        case awaitingAuth
        case awaitingRestart(sender: String)
        case awaitingBind(sender: String)
        case established(sender: String, jid: String)
        case closed
    }

    /// What the transport must do.
    public enum Output: Equatable, Sendable {
        case write(String)
        /// The sender's connection is bound: CCS traffic can flow.
        case bound(sender: String, jid: String)
        /// CONNECTION_DRAINING was sent: the transport closes the stream after the grace period.
        case drainStarted
        case close
    }

    public static let domain = "gcm.googleapis.com"
    public private(set) var state = State.awaitingStream
    /// The core's handle for this connection's CCS traffic, once bound.
    public var connection: Int?
    /// After CONNECTION_DRAINING, new downstream messages are nacked (FCM-WIRE.md §5.3, control).
    public private(set) var draining = false
    /// Finds the project (by number) whose server key this is; nil refuses the login.
    private let authenticate: @Sendable (_ senderId: String, _ serverKey: String) -> String?
    private let ccs: CCSHandler
    private var streamCount = 0

    public init(emulator: Emulator, laxAuth: Bool, prefixedForm: Bool = true) {
        ccs = CCSHandler(emulator: emulator, prefixedForm: prefixedForm)
        authenticate = { sender, key in
            guard let project = try? emulator.project(sender) else { return nil }
            return laxAuth || project.id.hasPrefix("demo-") || project.serverKeys.contains(key) ? project.id : nil
        }
    }

    public mutating func handle(_ event: XMPPStreamEvent) -> [Output] {
        if state == .closed { return [] }  // whatever still arrives after the close is ignored
        switch (event, state) {
        case (.streamOpened, .awaitingStream):
            state = .awaitingAuth
            return [.write(header() + "<stream:features><mechanisms xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"><mechanism>X-OAUTH2</mechanism><mechanism>X-GOOGLE-TOKEN</mechanism><mechanism>PLAIN</mechanism></mechanisms></stream:features>")]
        case (.streamOpened, .awaitingRestart(let sender)):
            state = .awaitingBind(sender: sender)
            return [.write(header() + "<stream:features><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"/><session xmlns=\"urn:ietf:params:xml:ns:xmpp-session\"/></stream:features>")]
        case (.stanza(let stanza), .awaitingAuth) where stanza.localName == "auth":
            return authenticate(stanza)
        case (.stanza(let stanza), .awaitingBind(let sender)) where stanza.localName == "iq" && stanza.child("bind") != nil:
            let resource = stanza.child("bind")?.child("resource")?.text ?? ""
            let jid = "\(sender)@\(Self.domain)/\(resource.isEmpty ? "fcm-emu-" + String(UInt32.random(in: 0...UInt32.max), radix: 16) : resource)"
            state = .established(sender: sender, jid: jid)
            let result = "<iq type=\"result\" id=\"\(XMLEscaping.escape(stanza.attribute("id") ?? "", quotes: true))\"><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"><jid>\(XMLEscaping.escape(jid, quotes: false))</jid></bind></iq>"
            return [.write(result), .bound(sender: sender, jid: jid)]
        case (.stanza(let stanza), .established(let sender, let jid)):
            return established(stanza, sender: sender, jid: jid)
        case (.stanza(let stanza), _) where stanza.localName == "presence":
            return []
        case (.streamClosed, _):
            state = .closed
            return [.write("</stream:stream>"), .close]
        case (.stanza(let stanza), _):
            // Anything else before the session is established (RFC 6120 §6.3.10, §7.2).
            state = .closed
            return [.write(XMPPStreamError(condition: "not-authorized", text: "<\(stanza.localName)> before authentication").xml), .close]
        case (.streamOpened, _):
            state = .closed
            return [.write(XMPPStreamError(condition: "invalid-xml", text: "unexpected stream header").xml), .close]
        }
    }

    /// Starts draining: the control message to send; the transport closes the stream later.
    public mutating func drain() -> [Output] {
        guard case .established = state, !draining else { return [] }
        draining = true
        let control = JSONValue.object([("message_type", .string("control")), ("control_type", .string("CONNECTION_DRAINING"))])
        return [.write(CCSHandler.message(control, prefixed: ccs.prefixedForm)), .drainStarted]
    }

    /// An upstream message or receipt for the app server, in the form CCS sends them (§5.3).
    public func deliver(_ item: CCSItem) -> Output {
        guard case .established(let sender, _) = state else { return .write("") }
        let text = XMLEscaping.escape(item.payload.encoded(), quotes: false)
        return .write("<message to=\"\(sender)@\(Self.domain)\" from=\"devices@\(Self.domain)\" type=\"normal\"><gcm xmlns=\"google:mobile:data\">\(text)</gcm></message>")
    }

    /// The reply to a stream error found while framing.
    public mutating func failed(_ error: XMPPStreamError) -> [Output] {
        if state == .closed { return [] }
        let needsHeader = state == .awaitingStream
        state = .closed
        return [.write((needsHeader ? header() : "") + error.xml), .close]
    }

    private mutating func header() -> String {
        streamCount += 1
        let id = String(format: "%016llX", UInt64.random(in: 0...UInt64.max))
        return "<stream:stream from=\"\(Self.domain)\" id=\"\(id)\" version=\"1.0\" xmlns:stream=\"http://etherx.jabber.org/streams\" xmlns=\"jabber:client\">"
    }

    /// SASL PLAIN: `\0authcid\0password`, with the sender id as `SENDER@fcm.googleapis.com`,
    /// `SENDER@gcm.googleapis.com` or bare, and the project's server key (§5.2).
    private mutating func authenticate(_ stanza: XMLElement) -> [Output] {
        let failure = { (condition: String) -> [Output] in
            [.write("<failure xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"><\(condition)/></failure></stream:stream>"), .close]
        }
        guard stanza.attribute("mechanism") == "PLAIN" else {
            state = .closed
            return failure("invalid-mechanism")
        }
        guard let decoded = Data(base64Encoded: stanza.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            state = .closed
            return failure("incorrect-encoding")
        }
        let parts = decoded.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 3, let sender = parts[1].split(separator: "@").first.map(String.init), let _ = authenticate(sender, parts[2]) else {
            state = .closed
            return failure("not-authorized")
        }
        state = .awaitingRestart(sender: sender)
        return [.write("<success xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"/>")]
    }

    private mutating func established(_ stanza: XMLElement, sender: String, jid: String) -> [Output] {
        switch stanza.localName {
        case "iq":
            // Sessions (RFC 3921) and pings (XEP-0199) get a bare result; other IQs an error.
            let id = XMLEscaping.escape(stanza.attribute("id") ?? "", quotes: true)
            if stanza.child("session") != nil || stanza.child("ping") != nil {
                return [.write("<iq type=\"result\" id=\"\(id)\" to=\"\(XMLEscaping.escape(jid, quotes: true))\"/>")]
            }
            return [.write("<iq type=\"error\" id=\"\(id)\"><error type=\"cancel\"><service-unavailable xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\"/></error></iq>")]
        case "message":
            // A drain fault fires on the message that matches it, which is then nacked as draining.
            let drained = ccs.drainFault(stanza, sender: sender) ? drain() : []
            return drained + ccs.handle(stanza, sender: sender, jid: jid, connection: connection, draining: draining).map { .write($0) }
        default:
            return []
        }
    }
}
