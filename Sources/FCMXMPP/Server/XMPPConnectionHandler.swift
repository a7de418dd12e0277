// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore

/// One CCS connection: bytes in through the framer and the session, answers out. It only
/// translates; the session decides (ARCHITECTURE.md: fronts translate, transport carries).
final class XMPPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var framer: XMPPFramer
    private var session: XMPPSession
    private var keepalive: RepeatedTask?
    private let keepaliveInterval: TimeAmount

    init(emulator: Emulator, laxAuth: Bool, maxStanzaBytes: Int, keepaliveInterval: TimeAmount) {
        framer = XMPPFramer(maxStanzaBytes: maxStanzaBytes)
        session = XMPPSession(emulator: emulator, laxAuth: laxAuth)
        self.keepaliveInterval = keepaliveInterval
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        do {
            for event in try framer.feed(bytes) { perform(session.handle(event), context: context) }
        } catch {
            perform(session.failed(error), context: context)
        }
    }

    private func perform(_ outputs: [XMPPSession.Output], context: ChannelHandlerContext) {
        for output in outputs {
            switch output {
            case .write(let text):
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
            case .bound:
                startKeepalive(context: context)
            case .close:
                keepalive?.cancel()
                context.close(promise: nil)
            }
        }
    }

    /// Whitespace pings between stanzas, as CCS sends them (FCM-WIRE.md §5.2).
    private func startKeepalive(context: ChannelHandlerContext) {
        guard keepaliveInterval > .zero else { return }
        let channel = context.channel
        keepalive = context.eventLoop.scheduleRepeatedTask(initialDelay: keepaliveInterval, delay: keepaliveInterval) { _ in
            channel.writeAndFlush(channel.allocator.buffer(string: " "), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepalive?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A failed TLS handshake or a vanished client ends only this connection.
        keepalive?.cancel()
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension XMPPConnectionHandler: Sendable {}
