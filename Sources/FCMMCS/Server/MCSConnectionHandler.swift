// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Logging
import NIOCore

/// Carries one MCS connection over a channel: frames in (from `MCSFrameDecoder`), the
/// connection's effects out, and its login timer. The connection decides; this handler only
/// performs (Sources/README.md).
final class MCSConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = MCSFrame
    typealias OutboundOut = ByteBuffer

    private var connection: MCSConnection
    private let router: MCSRouter
    private let logger: Logger
    private let loginTimeout: TimeAmount
    private var loginTimer: Scheduled<Void>?
    private var heartbeat: RepeatedTask?
    /// The server's first message on a connection starts with the version byte
    /// (Chromium connection_handler_impl.cc, `kMCSVersion`).
    private var versionSent = false
    /// Deliveries wait while the client does not read (back pressure): what is owed stays in the
    /// world's outbox, bounded there, not in this channel's buffer.
    private var pumpWhenWritable = false

    init(connection: MCSConnection, router: MCSRouter, loginTimeout: TimeAmount, logger: Logger) {
        self.connection = connection
        self.router = router
        self.loginTimeout = loginTimeout
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        loginTimer = context.eventLoop.scheduleTask(in: loginTimeout) {
            let (handler, context) = loopBound.value
            guard handler.connection.androidId == nil else { return }
            handler.perform([.close(reason: "no login within \(handler.loginTimeout.nanoseconds / 1_000_000_000) s", sendClose: true)], context: context)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let message: MCSMessage
        do {
            message = try MCSMessage(frame)
        } catch {
            perform([.close(reason: "a malformed \(frame.tag) message: \(error)", sendClose: true)], context: context)
            return
        }
        perform(connection.receive(message), context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, pumpWhenWritable {
            pumpWhenWritable = false
            pump(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    private func pump(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard context.channel.isWritable else {
            pumpWhenWritable = true
            return
        }
        perform(connection.pump(), context: context)
    }

    private func perform(_ effects: [MCSConnection.Effect], context: ChannelHandlerContext) {
        var wrote = false
        for effect in effects {
            switch effect {
            case .send(let message):
                write(message, context: context)
                wrote = true
            case .loggedIn(let androidId, let number, let heartbeatMillis):
                loginTimer?.cancel()
                loginTimer = nil
                let pinger = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let interval = TimeAmount.milliseconds(heartbeatMillis)
                heartbeat = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    let (handler, context) = pinger.value
                    handler.perform(handler.connection.heartbeat(), context: context)
                }
                logger.info("MCS receiver logged in", metadata: ["androidId": "\(androidId)", "peer": "\(peer(context))"])
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                router.register(androidId: androidId, connection: number, eventLoop: context.eventLoop) {
                    let (handler, context) = loopBound.value
                    handler.pump(context: context)
                }
            case .close(let reason, let sendClose):
                heartbeat?.cancel()
                heartbeat = nil
                logger.info("MCS connection closed: \(reason)", metadata: ["peer": "\(peer(context))"])
                if sendClose { write(.close, context: context) }
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: nil)
                context.close(promise: nil)
                return
            }
        }
        if wrote { context.flush() }
    }

    private func write(_ message: MCSMessage, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 64)
        if !versionSent {
            buffer.writeInteger(MCSFrame.version)
            versionSent = true
        }
        message.encode(into: &buffer)
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server is stopping (`OpenConnections.quiesce`), or the client went silent.
        if event is ChannelShouldQuiesceEvent {
            perform([.close(reason: "the emulator is stopping", sendClose: true)], context: context)
            return
        }
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            perform([.close(reason: "nothing received for too long", sendClose: true)], context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        loginTimer?.cancel()
        loginTimer = nil
        heartbeat?.cancel()
        heartbeat = nil
        if case .online(let androidId, let number) = connection.state { router.unregister(androidId: androidId, connection: number) }
        connection.disconnected()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The frame decoder's (a version, tag or size the protocol does not allow, a frame past its
        // cap) get a `Close`; a transport error, a bare close.
        perform([.close(reason: "\(error)", sendClose: error is MCSFrameError)], context: context)
    }

    private func peer(_ context: ChannelHandlerContext) -> String { context.remoteAddress?.description ?? "-" }
}
