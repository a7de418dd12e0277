// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// Everything the server writes on a CCS stream, as typed values. `text` is the one renderer:
/// elements go through `XMPPElement.xml`, which escapes every attribute and text, and only the
/// stream's own open and close tags, which are not whole elements, are written by hand.
/// The exchange: RFC 6120 as CCS runs it, and https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref.
public enum XMPPOutput: Sendable, Equatable {
    /// `<stream:stream …>` opening the server's side of a (re)started stream.
    case streamHeader(id: String)
    case features(Features)
    case saslSuccess
    /// SASL failure with its condition (`not-authorized`, `invalid-mechanism`, …); the stream closes after it.
    case saslFailure(condition: String)
    case bindResult(id: String, jid: String)
    case iqResult(id: String, to: String)
    /// An IQ the server does not serve: `service-unavailable` (RFC 6120 §8.4).
    case iqUnavailable(id: String)
    /// A CCS message: the JSON inside `<gcm>`, in the prefixed `<data:gcm>` form or not (docs/xmpp.md).
    case ccs(JSONValue, prefixed: Bool)
    /// An upstream message or receipt for the app server, addressed as CCS addresses them (the reference's examples).
    case toAppServer(JSONValue, sender: String)
    /// A stanza echoed back as a stanza error (`bad-request`, with CCS's text).
    case stanzaError(XMPPElement, to: String, text: String)
    case streamError(XMPPStreamError)
    case streamClose
    /// The whitespace keepalive CCS sends between stanzas.
    case keepalive

    public enum Features: Sendable, Equatable {
        /// Before authentication: the SASL mechanisms CCS offers (PLAIN is the one it accepts).
        case mechanisms
        /// After the restart: resource binding and the legacy session.
        case bind
    }

    public static let domain = "gcm.googleapis.com"
    private static let sasl = "urn:ietf:params:xml:ns:xmpp-sasl"
    private static let bindNS = "urn:ietf:params:xml:ns:xmpp-bind"
    private static let stanzasNS = "urn:ietf:params:xml:ns:xmpp-stanzas"
    private static let streamsNS = "urn:ietf:params:xml:ns:xmpp-streams"

    public var text: String {
        switch self {
        case .streamHeader(let id):
            return "<stream:stream from=\"\(Self.domain)\" id=\"\(XMLEscaping.escape(id, quotes: true))\" version=\"1.0\""
                + " xmlns:stream=\"http://etherx.jabber.org/streams\" xmlns=\"jabber:client\">"
        case .streamClose:
            return "</stream:stream>"
        case .keepalive:
            return " "
        case .streamError, .saslFailure:
            // Both end the stream (RFC 6120 §4.9, §6.4.5).
            return element.xml + Self.streamClose.text
        default:
            return element.xml
        }
    }

    /// The element written, for every output that is one (the stream tags and the keepalive are not).
    var element: XMPPElement {
        switch self {
        case .features(.mechanisms):
            let mechanisms = ["X-OAUTH2", "X-GOOGLE-TOKEN", "PLAIN"].map { XMPPElement(name: "mechanism", text: $0) }
            return XMPPElement(
                name: "stream:features",
                children: [XMPPElement(name: "mechanisms", attributes: [("xmlns", Self.sasl)], children: mechanisms)])
        case .features(.bind):
            return XMPPElement(
                name: "stream:features",
                children: [
                    XMPPElement(name: "bind", attributes: [("xmlns", Self.bindNS)]),
                    XMPPElement(name: "session", attributes: [("xmlns", "urn:ietf:params:xml:ns:xmpp-session")]),
                ])
        case .saslSuccess:
            return XMPPElement(name: "success", attributes: [("xmlns", Self.sasl)])
        case .saslFailure(let condition):
            return XMPPElement(name: "failure", attributes: [("xmlns", Self.sasl)], children: [XMPPElement(name: condition)])
        case .bindResult(let id, let jid):
            return XMPPElement(
                name: "iq", attributes: [("type", "result"), ("id", id)],
                children: [
                    XMPPElement(name: "bind", attributes: [("xmlns", Self.bindNS)], children: [XMPPElement(name: "jid", text: jid)])
                ])
        case .iqResult(let id, let to):
            return XMPPElement(name: "iq", attributes: [("type", "result"), ("id", id), ("to", to)])
        case .iqUnavailable(let id):
            return XMPPElement(
                name: "iq", attributes: [("type", "error"), ("id", id)],
                children: [
                    XMPPElement(
                        name: "error", attributes: [("type", "cancel")],
                        children: [
                            XMPPElement(name: "service-unavailable", attributes: [("xmlns", Self.stanzasNS)])
                        ])
                ])
        case .ccs(let json, let prefixed):
            // Acks, upstream messages and receipts use `<gcm xmlns=…>`; the reference shows nacks and
            // control messages in the prefixed form.
            if prefixed {
                let gcm = XMPPElement(name: "data:gcm", attributes: [("xmlns:data", "google:mobile:data")], text: json.encoded())
                return XMPPElement(name: "message", children: [gcm])
            }
            let gcm = XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: json.encoded())
            return XMPPElement(name: "message", attributes: [("id", "")], children: [gcm])
        case .toAppServer(let json, let sender):
            let gcm = XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: json.encoded())
            let attributes = [("to", "\(sender)@\(Self.domain)"), ("from", "devices@\(Self.domain)"), ("type", "normal")]
            return XMPPElement(name: "message", attributes: attributes, children: [gcm])
        case .stanzaError(let stanza, let to, let text):
            var echo = stanza
            echo.attributes = [("id", stanza.attribute("id") ?? ""), ("type", "error"), ("to", to)]
            echo.children.append(
                XMPPElement(
                    name: "error", attributes: [("code", "400"), ("type", "modify")],
                    children: [
                        XMPPElement(name: "bad-request", attributes: [("xmlns", Self.stanzasNS)]),
                        XMPPElement(name: "text", attributes: [("xmlns", Self.stanzasNS)], text: text),
                    ]))
            return echo
        case .streamError(let error):
            return XMPPElement(
                name: "stream:error",
                children: [
                    XMPPElement(name: error.condition, attributes: [("xmlns", Self.streamsNS)]),
                    XMPPElement(name: "text", attributes: [("xmlns", Self.streamsNS)], text: error.text),
                ])
        case .streamHeader, .streamClose, .keepalive:
            return XMPPElement(name: "")
        }
    }
}
