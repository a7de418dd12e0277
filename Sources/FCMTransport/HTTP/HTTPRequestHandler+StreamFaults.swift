// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// The faults that end or keep one call, leaving its connection's other calls alone
/// (docs/faults.md, `rstStream` and `hold`): the per-stream failures HTTP/2 clients meet when a
/// pooled connection's stream is reset or never answered (RFC 9113 §5.1, §6.4, §8.7).
extension HTTPRequestHandler {
    /// RST_STREAM with `code` on this HTTP/2 stream instead of an answer; the connection's other
    /// streams go on (RFC 9113 §5.4.2: a stream error ends the stream only). The frame closes the
    /// stream channel once it is sent.
    func resetStream(_ code: UInt32, context: ChannelHandlerContext) {
        guard let http2 else {
            // Not an HTTP/2 stream: closing the channel is all there is.
            context.close(promise: nil)
            return
        }
        http2.resetStream(HTTP2ErrorCode(networkCode: Int(code)))
    }

    /// Leaves the call unanswered, keeping `slot` until the stream or connection ends
    /// (`channelInactive`): the client's RST_STREAM, its close, the idle timeout (a held call is
    /// no progress: `IdleTimeoutHandler`, `HTTP2Connection.idle`), or the server's stop, which
    /// closes the stream (RST_STREAM CANCEL over HTTP/2) or the HTTP/1.1 connection. Nothing of
    /// the request is kept but the slot.
    func hold(_ slot: LiveSlot, context: ChannelHandlerContext) {
        // A stream the client reset meanwhile has nobody to keep waiting.
        guard context.channel.isActive else { return }
        holding = slot
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        slot.onServerStop { eventLoop.execute { loopBound.value.close(promise: nil) } }
    }
}
