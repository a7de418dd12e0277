// SPDX-License-Identifier: Apache-2.0

import FCMXMPP
import Foundation
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

/// The stanza decoder, checked as NIO checks its own decoders: the verifier feeds each input
/// whole, byte by byte and in random cuts, and the events must be the same every time.
@Suite("XMPP stream decoder")
struct XMPPStreamDecoderTests {
    /// The verifier feeds its inputs in a shuffled order, again and again on the same decoder, in
    /// other cuts each time: so each input here is a whole stream's beginning, never closed, and
    /// feeding it again is a restart (a header between stanzas, RFC 6120 §6.4.6).
    @Test func givesTheSameEventsHoweverTheBytesAreCut() throws {
        // A CCS session up to its close.
        let session = String(decoding: XMPPFramerTests.clientBytes, as: UTF8.self).replacingOccurrences(of: "\n</stream:stream>", with: "")
        var framer = XMPPFramer()
        let events = try framer.feed(Array(session.utf8))
        #expect(events.count == 7)
        try ByteToMessageDecoderVerifier.verifyDecoder(stringInputOutputPairs: [(session, events)], decoderFactory: { XMPPStreamDecoder() })
        // A stanza whose text lies around and between its children belongs to its element, its
        // entities decoded once it closes.
        let element = XMPPElement(
            name: "iq", attributes: [("id", "1")],
            children: [XMPPElement(name: "b", attributes: [("x", "<")], children: [XMPPElement(name: "c")], text: "cd")], text: "ae")
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                (
                    XMPPFramerTests.open + "<iq id='1'>a<b x='&lt;'>c<c/>d</b>e</iq> \n",
                    [.streamOpened(attributes: ["xmlns:stream": XMPPFramer.streamsNamespace]), .stanza(element)]
                )
            ],
            decoderFactory: { XMPPStreamDecoder() })
    }

    /// The framer takes what it has read from NIO's buffer and leaves a partial tag there: the
    /// verifier's check of leftover bytes sees what the decoder did not take.
    @Test func aPartialTagStaysInNIOsBufferUntilItEnds() throws {
        var framer = XMPPFramer()
        var buffer = ByteBuffer(string: XMPPFramerTests.open + "<message id='1'>text<gcm xmlns='google:mobile:data'")
        let events = try framer.feed(&buffer)
        #expect(events == [.streamOpened(attributes: ["xmlns:stream": XMPPFramer.streamsNamespace])])
        #expect(buffer.readableBytes == #"<gcm xmlns='google:mobile:data'"#.utf8.count)
        buffer.writeString(">{}</gcm></message>")
        let message = XMPPElement(
            name: "message", attributes: [("id", "1")],
            children: [XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: "{}")], text: "text")
        #expect(try framer.feed(&buffer) == [.stanza(message)])
        #expect(buffer.readableBytes == 0)
    }

    /// A framing error reaches the connection's handler as `errorCaught`, and nothing after it
    /// is read.
    @Test func aFramingErrorIsCaughtAndEndsTheReading() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(XMPPStreamDecoder()))
        let error = #expect(throws: XMPPStreamError.self) {
            try channel.writeInbound(ByteBuffer(string: "\(XMPPFramerTests.open)<!-- no --><iq/>"))
        }
        #expect(error?.condition == "restricted-xml")
        #expect(throws: ByteToMessageDecoderError.self) { try channel.writeInbound(ByteBuffer(string: "<iq/>")) }
        #expect(try channel.readInbound(as: XMPPStreamEvent.self) == nil)
        _ = try? channel.finish()
    }
}
