// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The framer in a channel's pipeline: a client's bytes in, stream events out.
/// The framer reads the tags NIO's buffer holds and the text between them, building the stanza
/// being read as they come; a partial tag is left in the buffer for the next read to complete
/// (so NIO's `ByteToMessageDecoderVerifier` checks what is left over). A framing error is thrown, and NIO's
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
        let events = try framer.feed(&buffer)
        for event in events { context.fireChannelRead(wrapInboundOut(event)) }
        return .needMoreData
    }

    /// At the end of the stream a partial stanza is dropped: no client waits for its answer.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
