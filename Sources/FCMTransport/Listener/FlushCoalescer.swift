// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Holds a connection's flushes to the end of its event loop's turn, and then flushes once: the
/// answers to every connection that was readable in one `epoll_wait` go to their sockets back to
/// back, after all of them were computed (docs/benchmarks.md). Netty's
/// `FlushConsolidationHandler` does this within one connection's reads; here it spans the turn.
///
/// Why it pays: an answer written to a loopback socket wakes the client's thread, which in a
/// virtual machine is an interrupt to the other core, and often takes this core from the event
/// loop until the client has sent its next request. Answers written together wake a client once
/// while it is still reading the first. With `wrk` on 32 connections, v1 sends over HTTP/1.1 went
/// from 34–45% of nginx to 49–59%, with a third fewer context switches per request.
///
/// Nothing is held longer than the turn that wrote it: the event loop runs the flush as soon as
/// the turn's I/O is handled, before it waits again. A close flushes what was written before it,
/// so `write`, `flush`, `close` still sends the bytes; so does removing the handler. It sits first
/// in each connection's pipeline (`Listener.bind`), nearest the socket, so it sees every flush of
/// HTTP, HTTPS, HTTP/2, the proxy's tunnels and CCS alike. A peer that sends and never reads gets
/// its answers in fewer, larger writes, of which the kernel buffers more before it pushes back:
/// the soak's CCS client that never reads got about half as many messages in again before its
/// reads stopped (docs/benchmarks.md).
final class FlushCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    /// A flush was asked for and the turn's flush has not run yet.
    private var owed = false

    func flush(context: ChannelHandlerContext) {
        // Over the write buffer's high-water mark (a peer that does not read): flushed now, as
        // without this handler, so what waits is handed to the kernel, which pushes back, and the
        // connection's reads stop (docs/limits.md, a slow reader) with no more gathered here.
        guard context.channel.isWritable else {
            owed = false
            context.flush()
            return
        }
        guard !owed else { return }
        owed = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = loopBound.value
            handler.flushOwed(context: context)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        flushOwed(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        flushOwed(context: context)
    }

    private func flushOwed(context: ChannelHandlerContext) {
        guard owed else { return }
        owed = false
        context.flush()
    }
}

@available(*, unavailable)
extension FlushCoalescer: Sendable {}
