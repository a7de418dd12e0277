// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// In front of TLS on the HTTPS port (`ConnectionFloor`): when a `slowHandshake` fault fires
/// (docs/faults.md), the connection's first bytes (the ClientHello) wait the rule's delay before
/// TLS reads them, so the handshake, and everything after it, comes that much later: a client's
/// connect timeout can be tested. The delay is emulator time, waited in wall time at the clock's speed as injected
/// latency is (a paused or virtual clock does not wait). Removes itself once it has decided.
final class SlowHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A TLS client sends its ClientHello and waits for the server's: more than this while the
    /// handshake is held is not TLS, and the connection is closed.
    static let maxHeldBytes = 64 * 1024

    private let responder: HTTPResponder
    private var held: [NIOAny] = []
    private var heldBytes = 0
    private var holding = false

    init(responder: HTTPResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !holding else {
            heldBytes += unwrapInboundIn(data).readableBytes
            guard heldBytes <= Self.maxHeldBytes else {
                context.close(promise: nil)
                return
            }
            held.append(data)
            return
        }
        let wait = HTTPRequestHandler.wallDelay(emulatorMillis: responder.handshakeDelayMillis(), speed: responder.clockSpeed())
        guard wait > 0 else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        holding = true
        heldBytes = unwrapInboundIn(data).readableBytes
        held = [data]
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(wait)) {
            let (handler, context) = loopBound.value
            guard context.channel.isActive else { return }
            handler.holding = false
            let reads = handler.held
            handler.held = []
            for read in reads { context.fireChannelRead(read) }
            context.fireChannelReadComplete()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !holding { context.fireChannelReadComplete() }
    }

    /// While the ClientHello is held the wait is the server's, not the client's idleness: the
    /// idle timeout is not passed on (`NegotiationIdleHandler` would close the connection).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if holding, event is IdleStateHandler.IdleStateEvent { return }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension SlowHandshakeHandler: Sendable {}
