// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMXMPP
import Foundation
import Testing

@Suite("XMPP session and CCS, through one CCS connection")
struct XMPPSessionTests {
    /// Feeds client bytes to a CCS connection; keeps everything written, and whether it closed.
    struct Client {
        var connection: CCSConnection
        var written = ""
        var closed = false

        init(_ emulator: Emulator, prefixedForm: Bool = true) {
            connection = CCSConnection(emulator: emulator, configuration: CCSConnection.Configuration(prefixedForm: prefixedForm))
        }

        mutating func send(_ text: String) { apply(connection.receive(Array(text.utf8))) }

        private mutating func apply(_ effects: [CCSConnection.Effect]) {
            for effect in effects {
                switch effect {
                case .write(let text): written += text
                case .close: closed = true
                case .joined, .drainStarted, .ended, .refused: break
                }
            }
        }

        /// Logs in with SASL PLAIN and binds, as go-xmpp and Smack do (docs/xmpp.md).
        mutating func login(authcid: String, key: String) {
            send(
                "<?xml version='1.0'?><stream:stream to='fcm.googleapis.com' version='1.0' xmlns='jabber:client'"
                    + " xmlns:stream='http://etherx.jabber.org/streams'>"
            )
            send(
                "<auth mechanism='PLAIN'"
                    + " xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(Data("\0\(authcid)\0\(key)".utf8).base64EncodedString())</auth>"
            )
            send(
                "<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client'"
                    + " xmlns:stream='http://etherx.jabber.org/streams'>"
            )
            send("<iq type='set' id='b1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>r1</resource></bind></iq>")
        }

        /// The JSON payloads of CCS messages written since `mark`.
        func payloads(after mark: String.Index? = nil) -> [JSONValue] {
            let text = mark.map { String(written[$0...]) } ?? written
            return text.components(separatedBy: "google:mobile:data\">").dropFirst().compactMap { chunk in
                let json = chunk.components(separatedBy: "</").first ?? ""
                let unescaped = json.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&amp;", with: "&")
                return try? JSONParser.parse(unescaped)
            }
        }
    }

    private func setUp() throws -> (Emulator, DeviceInfo, String) {
        let emulator = Emulator()
        let project = try emulator.createProject(id: "ccs-app", number: "4242")
        let device = try emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: project.id)
        return (emulator, device, try #require(project.serverKeys.first))
    }

    @Test(arguments: ["4242@fcm.googleapis.com", "4242@gcm.googleapis.com", "4242"])
    func logsInWithEachAuthcidForm(authcid: String) throws {
        let (emulator, _, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: authcid, key: key)
        #expect(client.written.contains("<mechanism>PLAIN</mechanism>"))
        #expect(client.written.contains("<success xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"/>"))
        #expect(client.written.contains("<jid>4242@gcm.googleapis.com/r1</jid>"))
        #expect(client.connection.state == .established(XMPPSession.Established(sender: "4242", jid: "4242@gcm.googleapis.com/r1")))
        #expect(!client.closed)
    }

    @Test func wrongKeyIsNotAuthorized() throws {
        let (emulator, _, _) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242@gcm.googleapis.com", key: "wrong")
        #expect(client.written.hasSuffix("<failure xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"><not-authorized/></failure></stream:stream>"))
        #expect(client.closed)
    }

    @Test func downstreamIsAckedAndDelivered() throws {
        let (emulator, device, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        client.send(
            #"<message id=""><gcm xmlns="google:mobile:data">{"to":"\#(device.token)","message_id":"m-1","data":"#
                + #"{"hello":"world"},"time_to_live":600}</gcm></message>"#
        )
        let ack = try #require(client.payloads(after: mark).first)
        #expect(ack.encoded() == #"{"from":"\#(device.token)","message_id":"m-1","message_type":"ack"}"#)
        let delivery = try #require(try emulator.inbox(String(device.id), projectId: "ccs-app").1.first)
        #expect(delivery.message?.api == .xmpp)
        #expect(delivery.ttlSeconds == 600)
    }

    @Test func errorsAreNackedWithTheReferenceCodes() throws {
        let (emulator, device, key) = try setUp()
        try emulator.deleteDevice(String(device.id), projectId: "ccs-app")
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        for (id, to) in [("m-1", device.token), ("m-2", "garbage")] {
            client.send(#"<message id=""><gcm xmlns="google:mobile:data">{"to":"\#(to)","message_id":"\#(id)"}</gcm></message>"#)
        }
        client.send(#"<message><gcm xmlns="google:mobile:data">{"to":"x","message_id":"m-3","time_to_live":-1}</gcm></message>"#)
        client.send(#"<message><gcm xmlns="google:mobile:data">{"message_type":"ack"}</gcm></message>"#)
        let errors = client.payloads(after: mark).map { $0["error"]?.stringValue }
        #expect(errors == ["DEVICE_UNREGISTERED", "BAD_REGISTRATION", "INVALID_JSON", "BAD_ACK"])
        #expect(client.written[mark...].contains("<data:gcm xmlns:data=\"google:mobile:data\">"))
    }

    /// An empty `to` is a missing registration token (INVALID_JSON, as legacy HTTP answers
    /// MissingRegistration), not a malformed one; refusals name CCS's own fields, and a web URL
    /// that is not HTTPS, in a message to a web app (XMPP reference, table 2c), is refused as
    /// legacy refuses it.
    @Test func missingRecipientsAndBadParametersAreInvalidJson() throws {
        let (emulator, _, key) = try setUp()
        let browser = try emulator.createDevice(DeviceSpec(platform: .web, appId: "https://example.com"), projectId: "ccs-app")
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        for payload in [
            #"{"to":"","message_id":"m-1"}"#, #"{"message_id":"m-2","data":{"a":"b"}}"#,
            #"{"to":"\#(browser.token)","message_id":"m-3","notification":{"icon":"http://example.com/i.png"}}"#,
        ] {
            client.send(#"<message><gcm xmlns="google:mobile:data">\#(payload)</gcm></message>"#)
        }
        let nacks = client.payloads(after: mark)
        #expect(nacks.map { $0["error"]?.stringValue } == ["INVALID_JSON", "INVALID_JSON", "INVALID_JSON"])
        #expect(
            nacks.map { $0["error_description"]?.stringValue } == [
                "Missing registration token in \"to\"", "Missing \"to\" field",
                "InvalidParameters: \"notification.icon\" must be an HTTPS URL",
            ])
    }

    @Test func drainingSendsControlThenNacksNewMessages() throws {
        let (emulator, device, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        var outputs = client.connection.drain()
        #expect(
            outputs == [
                .write(
                    #"<message><data:gcm xmlns:data="google:mobile:data">{"message_type":"control","#
                        + #""control_type":"CONNECTION_DRAINING"}</data:gcm></message>"#
                ), .drainStarted,
            ])
        #expect(client.connection.drain().isEmpty)
        let mark = client.written.endIndex
        client.send(#"<message id=""><gcm xmlns="google:mobile:data">{"to":"\#(device.token)","message_id":"m-9"}</gcm></message>"#)
        #expect(client.payloads(after: mark).first?["error"] == .string("CONNECTION_DRAINING"))
        #expect(try emulator.inbox(String(device.id), projectId: "ccs-app").1.isEmpty)
        outputs = []
    }

    @Test func aDrainFaultDrainsTheConnectionOnTheMatchingMessage() throws {
        let (emulator, device, key) = try setUp()
        try emulator.addFaultRule(FaultRule(id: "lb", match: .init(api: .xmpp, nth: 2), action: .drain))
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        for id in ["m-1", "m-2", "m-3"] {
            client.send(#"<message id=""><gcm xmlns="google:mobile:data">{"to":"\#(device.token)","message_id":"\#(id)"}</gcm></message>"#)
        }
        let replies = client.payloads(after: mark)
        #expect(replies.map { $0["message_type"]?.stringValue } == ["ack", "control", "nack", "nack"])
        #expect(replies.last?["error"] == .string("CONNECTION_DRAINING"))
        #expect(try emulator.inbox(String(device.id), projectId: "ccs-app").1.count == 1)
    }

    @Test func thePlainFormSwitchPutsNacksInGcm() throws {
        let (emulator, _, key) = try setUp()
        var client = Client(emulator, prefixedForm: false)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        client.send(#"<message><gcm xmlns="google:mobile:data">{"to":"garbage","message_id":"m-1"}</gcm></message>"#)
        #expect(client.written[mark...].hasPrefix(#"<message id=""><gcm xmlns="google:mobile:data">"#))
        #expect(client.payloads(after: mark).first?["error"] == .string("BAD_REGISTRATION"))
    }

    @Test func unidentifiableMessagesGetAStanzaError() throws {
        let (emulator, _, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        client.send(#"<message id="3"><gcm xmlns="google:mobile:data">{"random": "text"}</gcm></message>"#)
        #expect(client.written.contains(#"<message id="3" type="error" to="4242@gcm.googleapis.com/r1">"#))
        #expect(client.written.contains("Missing Required Field: message_id"))
        client.send(#"<iq type="get" id="c2s1"><ping xmlns="urn:xmpp:ping"/></iq>"#)
        #expect(client.written.hasSuffix(#"<iq type="result" id="c2s1" to="4242@gcm.googleapis.com/r1"/>"#))
        #expect(!client.closed)
    }

    /// A message_id is kept with every stored copy (for receipts), so it is bounded.
    @Test func aMessageIdOver1024BytesGetsAStanzaError() throws {
        let (emulator, device, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let id = String(repeating: "m", count: 1025)
        client.send(#"<message id="9"><gcm xmlns="google:mobile:data">{"to":"\#(device.token)","message_id":"\#(id)"}</gcm></message>"#)
        #expect(client.written.contains("message_id is longer than 1024 bytes"))
        #expect(try emulator.inbox(String(device.id), projectId: "ccs-app").1.isEmpty)
    }

    /// Found by fuzzing: `<` followed by a combining mark is one Swift Character, which escaping
    /// by Character let through raw, so an ack echoing the message id broke the server's stream.
    @Test func echoedTextIsEscapedByScalarNotByCharacter() throws {
        let (emulator, device, key) = try setUp()
        var client = Client(emulator)
        client.login(authcid: "4242", key: key)
        let mark = client.written.endIndex
        client.send(
            "<message id=\"\"><gcm xmlns=\"google:mobile:data\">{\"to\":\"\(device.token)\","
                + "\"message_id\":\"m&lt;\u{65B}1\"}</gcm></message>"
        )
        let reply = String(client.written[mark...])
        #expect(reply.contains("&lt;\u{65B}1"))
        #expect(!reply.unicodeScalars.map(String.init).joined().contains("<\u{65B}"))
        var framer = XMPPFramer()
        #expect(throws: Never.self) {
            _ = try framer.feed(Array(("<stream:stream xmlns:stream='http://etherx.jabber.org/streams'>" + reply).utf8))
        }
    }

    @Test func namesThatCouldBreakAnEchoAreRefused() throws {
        let (emulator, _, _) = try setUp()
        var client = Client(emulator)
        client.send("<stream:stream xmlns:stream='http://etherx.jabber.org/streams'><iq x<\u{65B}=\"1\"/>")
        #expect(client.written.contains("<not-well-formed xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(client.closed)
    }

    @Test func stanzasBeforeAuthenticationAndGarbageCloseTheStream() throws {
        let (emulator, _, _) = try setUp()
        var early = Client(emulator)
        early.send("<stream:stream xmlns:stream='http://etherx.jabber.org/streams'><message><gcm>{}</gcm></message>")
        #expect(early.written.contains("<not-authorized xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(early.closed)
        var garbage = Client(emulator)
        garbage.send("\u{16}\u{03}\u{01} hello")
        #expect(garbage.written.contains("<not-well-formed"))
        #expect(garbage.written.hasPrefix("<stream:stream"))
        #expect(garbage.closed)
    }
}
