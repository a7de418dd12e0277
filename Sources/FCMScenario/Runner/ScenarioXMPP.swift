// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMXMPP

/// The scenario's app-server connection to CCS: the same session and CCS code a TCP client
/// reaches, fed stream events directly (no TLS, no sockets). It logs in on first use and keeps
/// what CCS sent it: acks and nacks, upstream messages, receipts, control messages.
struct ScenarioXMPP {
    private var session: XMPPSession
    private var replies = XMPPFramer()
    private let emulator: Emulator
    private(set) var sender: String
    private var project = ""
    private var drainsSeen = 0
    /// Every CCS payload received, in order.
    private(set) var received: [JSONValue] = []

    init(emulator: Emulator, sender: String, laxAuth: Bool) {
        self.emulator = emulator
        self.sender = sender
        session = XMPPSession(emulator: emulator, laxAuth: laxAuth)
        _ = try? replies.feed(Array("<stream:stream>".utf8))
    }

    /// Logs in with the sender's server key and binds; false when refused.
    mutating func login() -> Bool {
        guard let project = try? emulator.project(sender) else { return false }
        self.project = project.id
        let credentials = "\0\(project.number)@gcm.googleapis.com\0\(project.serverKeys.first ?? "")"
        let auth = XMLElement(name: "auth", attributes: [("mechanism", "PLAIN")], text: Base64.encode(Array(credentials.utf8)))
        let bind = XMLElement(name: "iq", attributes: [("type", "set"), ("id", "b1")], children: [XMLElement(name: "bind")])
        for event in [XMPPStreamEvent.streamOpened(attributes: [:]), .stanza(auth), .streamOpened(attributes: [:]), .stanza(bind)] {
            _ = take(session.handle(event))
        }
        guard case .established = session.state, let (connection, _) = try? emulator.ccsConnect(sender: project.id) else { return false }
        session.connection = connection
        drainsSeen = emulator.drainRequests(projectId: project.id)
        return true
    }

    var isLoggedIn: Bool { session.connection != nil }

    /// Sends a CCS message (downstream or ack); returns the CCS replies it drew.
    mutating func send(_ payload: JSONValue) -> [JSONValue] {
        let stanza = XMLElement(name: "message", attributes: [("id", "")], children: [
            XMLElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: payload.encoded())
        ])
        let replies = take(session.handle(.stanza(stanza)))
        pump()
        return replies
    }

    /// Takes what CCS has for the connection (upstream messages, receipts) and honours drains,
    /// as the server's connection handler does after each wake-up.
    mutating func pump() {
        guard let connection = session.connection else { return }
        if emulator.drainRequests(projectId: project) > drainsSeen {
            drainsSeen = emulator.drainRequests(projectId: project)
            _ = take(session.drain())
        }
        for item in emulator.ccsTake(connection) { _ = take([session.deliver(item)]) }
    }

    /// Records the CCS payloads in what the session wrote, and returns them.
    private mutating func take(_ outputs: [XMPPSession.Output]) -> [JSONValue] {
        var payloads: [JSONValue] = []
        for case .write(let text) in outputs {
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

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
