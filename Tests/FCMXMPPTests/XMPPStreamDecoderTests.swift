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
    /// The verifier feeds every input again on the same decoder in other cuts, so the stream is
    /// never closed here: a second header between stanzas is a restart (RFC 6120 §6.4.6).
    @Test func givesTheSameEventsHoweverTheBytesAreCut() throws {
        // A CCS session up to its close, as one input.
        let session = String(decoding: XMPPFramerTests.clientBytes, as: UTF8.self).replacingOccurrences(of: "\n</stream:stream>", with: "")
        var framer = XMPPFramer()
        let events = try framer.feed(Array(session.utf8))
        #expect(events.count == 7)
        try ByteToMessageDecoderVerifier.verifyDecoder(stringInputOutputPairs: [(session, events)], decoderFactory: { XMPPStreamDecoder() })
        // A stream in pieces, each with the events it completes: text around and between children
        // belongs to its element, entities decoded once it closes.
        let element = XMPPElement(
            name: "iq", attributes: [("id", "1")],
            children: [XMPPElement(name: "b", attributes: [("x", "<")], children: [XMPPElement(name: "c")], text: "cd")], text: "ae")
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                (XMPPFramerTests.open, [.streamOpened(attributes: ["xmlns:stream": XMPPFramer.streamsNamespace])]),
                ("<iq id='1'>a<b x='&lt;'>c<c/>d</b>e</iq>", [.stanza(element)]),
                (" \n", []),
            ],
            decoderFactory: { XMPPStreamDecoder() })
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
