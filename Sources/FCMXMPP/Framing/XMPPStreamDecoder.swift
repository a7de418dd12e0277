// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The framer in a channel's pipeline: a client's bytes in, stream events out.
/// Every byte is handed to the framer as it arrives, which keeps only a partial tag and builds the
/// stanza being read, so nothing is left for NIO to hold. A framing error is thrown, and NIO's
/// `ByteToMessageHandler` passes it on as `errorCaught` and drops the rest of the stream; the
/// connection answers it with a stream error. Checked with NIO's `ByteToMessageDecoderVerifier`.
public struct XMPPStreamDecoder: ByteToMessageDecoder {
    public typealias InboundOut = XMPPStreamEvent

    private var framer: XMPPFramer

    public init(maxStanzaBytes: Int = XMPPFramer.defaultMaxStanzaBytes) {
        framer = XMPPFramer(maxStanzaBytes: maxStanzaBytes)
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes > 0 else { return .needMoreData }
        let events = try framer.feed(buffer.readableBytesView)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        for event in events { context.fireChannelRead(wrapInboundOut(event)) }
        return .needMoreData
    }

    /// At the end of the stream a partial stanza is dropped: no client waits for its answer.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
