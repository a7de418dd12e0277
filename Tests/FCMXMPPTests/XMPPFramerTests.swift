// SPDX-License-Identifier: Apache-2.0

import FCMXMPP
import Testing

@Suite("XMPP framing")
struct XMPPFramerTests {
    static let open = "<stream:stream xmlns:stream='http://etherx.jabber.org/streams'>"

    /// The client side of a CCS session (docs/xmpp.md), as go-xmpp and Smack send it.
    static let clientBytes = Array(
        """
        <?xml version='1.0'?><stream:stream to="gcm.googleapis.com" version="1.0" xmlns="jabber:client" \
        xmlns:stream="http://etherx.jabber.org/streams">
        <auth mechanism="PLAIN" xmlns="urn:ietf:params:xml:ns:xmpp-sasl">ADEyMzQ1Njc4OTAxMgBrZXk=</auth>
        <stream:stream to="gcm.googleapis.com" version="1.0" xmlns="jabber:client" xmlns:stream="http://etherx.jabber.org/streams">
        <iq type="set" id="b1"><bind xmlns="urn:ietf:params:xml:ns:xmpp-bind"><resource>r1</resource></bind></iq> \
        <presence xml:lang='en'><show></show><status></status></presence>
        <message id=""><gcm xmlns="google:mobile:data">\
        {&quot;to&quot;:&quot;t&quot;,"message_id":"m-1","data":{"a":"&lt;b&gt; &amp; &#233;"}}</gcm></message>
        <message><data:gcm xmlns:data="google:mobile:data">{"message_type":"ack","message_id":"dr2:m-1"}</data:gcm></message>
        </stream:stream>
        """.utf8)

    private func events(_ chunks: [ArraySlice<UInt8>]) throws -> [XMPPStreamEvent] {
        var framer = XMPPFramer()
        var out: [XMPPStreamEvent] = []
        for chunk in chunks { out += try framer.feed(chunk) }
        return out
    }

    @Test func readsAWholeSession() throws {
        let all = try events([Self.clientBytes[...]])
        #expect(all.count == 8)
        guard case .streamOpened(let header) = all[0] else { Issue.record("no header"); return }
        #expect(header["to"] == "gcm.googleapis.com")
        guard case .stanza(let auth) = all[1], case .stanza(let bind) = all[3], case .stanza(let message) = all[5],
            case .stanza(let ack) = all[6]
        else {
            Issue.record("unexpected events \(all)")
            return
        }
        #expect(auth.attribute("mechanism") == "PLAIN")
        #expect(auth.text == "ADEyMzQ1Njc4OTAxMgBrZXk=")
        #expect(bind.child("bind")?.child("resource")?.text == "r1")
        #expect(message.child("gcm")?.text == #"{"to":"t","message_id":"m-1","data":{"a":"<b> & é"}}"#)
        #expect(ack.child("gcm")?.name == "data:gcm")
        #expect(all[7] == .streamClosed)
    }

    @Test func anySplitGivesTheSameEvents() throws {
        let whole = try events([Self.clientBytes[...]])
        for cut in 1..<Self.clientBytes.count {
            let split = try events([Self.clientBytes[..<cut], Self.clientBytes[cut...]])
            #expect(split == whole, "split at \(cut)")
        }
        #expect(try events(Self.clientBytes.indices.map { Self.clientBytes[$0...$0] }) == whole)
    }

    @Test(arguments: [
        ("<!DOCTYPE x [<!ENTITY a 'b'>]>\(XMPPFramerTests.open)", "restricted-xml"),
        ("\(XMPPFramerTests.open)<!-- hi --><iq/>", "restricted-xml"),
        ("\(XMPPFramerTests.open)<?php x ?>", "restricted-xml"),
        ("\(XMPPFramerTests.open)garbage", "not-well-formed"),
        ("<iq/>", "not-well-formed"),
        ("\(XMPPFramerTests.open)<iq><a></b></iq>", "not-well-formed"),
        ("\(XMPPFramerTests.open)<iq type=set/>", "not-well-formed"),
        ("\(XMPPFramerTests.open)<iq a='1' a='2'/>", "not-well-formed"),
        ("\(XMPPFramerTests.open)<message>&bogus;</message>", "not-well-formed"),
        // RFC 6120 §4.9.3.10: a header outside the streams namespace.
        ("<stream:stream>", "invalid-namespace"),
        ("<stream:stream xmlns:stream='urn:wrong'>", "invalid-namespace"),
        ("<stream xmlns='jabber:client'>", "invalid-namespace"),
        // Thousands of attributes cost a quadratic duplicate check.
        (
            "<stream:stream xmlns:stream='http://etherx.jabber.org/streams' \((0..<20_000).map { "a\($0)='x'" }.joined(separator: " "))>",
            "policy-violation"
        ),
    ])
    func refusesWhatRestrictedXMLForbids(input: String, condition: String) {
        var framer = XMPPFramer()
        do {
            _ = try framer.feed(Array(input.utf8))
            Issue.record("accepted \(input)")
        } catch {
            #expect(error.condition == condition, "\(input): \(error)")
            #expect(XMPPOutput.streamError(error).text.contains("<\(condition) xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        }
    }

    @Test func capsStanzaSizeEvenWhileIncomplete() throws {
        var framer = XMPPFramer(maxStanzaBytes: 1024)
        _ = try framer.feed(Array("\(XMPPFramerTests.open)".utf8))
        #expect(throws: XMPPStreamError.self) { _ = try framer.feed(Array(("<message>" + String(repeating: "a", count: 2000)).utf8)) }
        var deep = XMPPFramer()
        _ = try deep.feed(Array("\(XMPPFramerTests.open)".utf8))
        let nested = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        #expect(throws: XMPPStreamError.self) { _ = try deep.feed(Array(nested.utf8)) }
    }

    /// A tag that arrives a byte at a time is searched for its end once in all, a quoted `>` kept
    /// apart across reads: before, each read searched it again from its `<`, so 256 KiB sent this
    /// way cost tens of billions of steps and ran past the limit, which
    /// cancels the test between reads.
    @Test(.timeLimit(.minutes(1)))
    func aTagTrickledAByteAtATimeIsReadOnce() async throws {
        var framer = XMPPFramer()
        _ = try framer.feed(Array(Self.open.utf8))
        let note = String(repeating: "x", count: 256 * 1024)
        let tag = Array("<message id='a>b' note=\"\(note)\"/>".utf8)
        var out: [XMPPStreamEvent] = []
        for (i, byte) in tag.enumerated() {
            if i % 1024 == 0 { try Task.checkCancellation() }
            out += try framer.feed(CollectionOfOne(byte))
        }
        guard out.count == 1, case .stanza(let message) = out[0] else {
            Issue.record("unexpected events \(out.count)")
            return
        }
        #expect(message.attribute("id") == "a>b")
        #expect(message.attribute("note") == note)
    }

    @Test func whitespaceKeepalivesAreIgnored() throws {
        var framer = XMPPFramer()
        #expect(try framer.feed(Array("\(XMPPFramerTests.open) \n ".utf8)).count == 1)
        #expect(try framer.feed(Array("   ".utf8)).isEmpty)
    }

    @Test func elementsRenderBackToXML() {
        let element = XMPPElement(
            name: "message", attributes: [("id", "a\"b")],
            children: [XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: #"{"k":"<v>"}"#)])
        #expect(element.xml == #"<message id="a&quot;b"><gcm xmlns="google:mobile:data">{"k":"&lt;v&gt;"}</gcm></message>"#)
    }
}
