// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMXMPP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The scenario's app-server connection to CCS: the same `CCSConnection` a TCP client reaches,
/// fed the bytes a client would send (no TLS, no sockets). It logs in on first use and keeps
/// what CCS sent it: acks and nacks, upstream messages, receipts, control messages.
struct ScenarioXMPP {
    private var connection: CCSConnection
    private var replies = XMPPFramer()
    private let emulator: Emulator
    private(set) var sender: String
    /// Every CCS payload received, in order.
    private(set) var received: [JSONValue] = []

    init(emulator: Emulator, sender: String, laxAuth: Bool) {
        self.emulator = emulator
        self.sender = sender
        connection = CCSConnection(emulator: emulator, configuration: CCSConnection.Configuration(laxAuth: laxAuth))
        _ = try? replies.feed(Array("<stream:stream xmlns:stream='\(XMPPFramer.streamsNamespace)'>".utf8))
    }

    /// Logs in with the sender's server key and binds, as a client would; false when refused.
    mutating func login() -> Bool {
        guard let project = try? emulator.project(sender) else { return false }
        let header =
            "<stream:stream to=\"gcm.googleapis.com\" version=\"1.0\""
            + " xmlns=\"jabber:client\" xmlns:stream=\"http://etherx.jabber.org/streams\">"
        let credentials = Data("\0\(project.number)@gcm.googleapis.com\0\(project.serverKeys.first ?? "")".utf8).base64EncodedString()
        let auth = XMPPElement(
            name: "auth", attributes: [("xmlns", "urn:ietf:params:xml:ns:xmpp-sasl"), ("mechanism", "PLAIN")], text: credentials)
        let bind = XMPPElement(
            name: "iq", attributes: [("type", "set"), ("id", "b1")],
            children: [
                XMPPElement(name: "bind", attributes: [("xmlns", "urn:ietf:params:xml:ns:xmpp-bind")])
            ])
        for bytes in [header, auth.xml, header, bind.xml] { _ = take(connection.receive(Array(bytes.utf8))) }
        return isLoggedIn
    }

    var isLoggedIn: Bool { connection.connection != nil }

    /// Sends a CCS message (downstream or ack); returns the CCS replies it drew.
    mutating func send(_ payload: JSONValue) -> [JSONValue] {
        let stanza = XMPPElement(
            name: "message", attributes: [("id", "")],
            children: [
                XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: payload.encoded())
            ])
        let answers = take(connection.receive(Array(stanza.xml.utf8)))
        pump()
        return answers
    }

    /// Takes what CCS has for the connection (upstream messages, receipts) and honours drains,
    /// as the server's connection handler does after each wake-up.
    mutating func pump() {
        _ = take(connection.pump())
    }

    /// Records the CCS payloads in what the connection wrote, and returns them.
    private mutating func take(_ effects: [CCSConnection.Effect]) -> [JSONValue] {
        var payloads: [JSONValue] = []
        for case .write(let text) in effects {
            guard let events = try? replies.feed(Array(text.utf8)) else { continue }
            for case .stanza(let stanza) in events {
                guard let gcm = stanza.child("gcm"), let json = try? JSONParser.parse(Array(gcm.text.utf8)) else { continue }
                payloads.append(json)
            }
        }
        received += payloads
        return payloads
    }
}
