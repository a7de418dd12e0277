// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Logging
import NIOCore

/// Carries one CCS connection over a channel: stream events in (from `XMPPStreamDecoder`), effects out, and the timers the effects
/// ask for (keepalive, scheduled drain, drain grace), all cancelled when the channel closes.
/// The connection decides; this handler only performs (fronts translate, transport carries:
/// Sources/README.md).
final class XMPPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = XMPPStreamEvent
    typealias OutboundOut = ByteBuffer

    private var connection: CCSConnection
    private let router: CCSRouter
    private let logger: Logger
    private let configuration: XMPPServer.Configuration
    /// Every timer this connection started, so that a close leaves none behind.
    private var timers: [Scheduled<Void>] = []
    private var keepalive: RepeatedTask?

    init(emulator: Emulator, router: CCSRouter, configuration: XMPPServer.Configuration, logger: Logger) {
        connection = CCSConnection(emulator: emulator, configuration: configuration.connection)
        self.router = router
        self.logger = logger
        self.configuration = configuration
    }

    func channelActive(context: ChannelHandlerContext) {
        let seconds = configuration.loginTimeoutSeconds
        schedule(in: .seconds(seconds), context: context) { connection in
            connection.connection == nil ? connection.timedOut("not logged in within \(seconds) s") : []
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server is stopping (`OpenConnections.quiesce`): CCS ends the stream with system-shutdown.
        if event is ChannelShouldQuiesceEvent {
            perform(connection.shuttingDown(), context: context)
            return
        }
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            perform(connection.timedOut("nothing received for \(configuration.idleTimeoutSeconds) s"), context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(connection.receive(unwrapInboundIn(data)), context: context)
    }

    private func perform(_ effects: [CCSConnection.Effect], context: ChannelHandlerContext) {
        for effect in effects {
            switch effect {
            case .write(let text):
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
            case .joined(let projectId, let id):
                logger.info("XMPP session bound", metadata: ["project": "\(projectId)", "connection": "\(id)", "peer": "\(peer(context))"])
                joined(projectId: projectId, connection: id, context: context)
            case .ended(let reason):
                logger.info(
                    "XMPP session ended: \(reason)", metadata: ["project": "\(connection.projectId ?? "-")", "peer": "\(peer(context))"])
            case .refused(let refusal):
                // Info, with the reason: a nack's error code alone does not say why.
                logger.info(
                    "XMPP message refused: \(refusal.code): \(Refusal.truncated(refusal.detail))",
                    metadata: [
                        "api": "xmpp", "project": "\(refusal.project ?? "-")", "code": "\(refusal.code)",
                        "target": "\(refusal.target ?? "-")", "reason": "\(Refusal.truncated(refusal.detail))",
                    ])
            case .drainStarted:
                schedule(in: .milliseconds(configuration.drainGraceMillis), context: context) { $0.finishDraining() }
            case .close:
                stopTimers()
                context.close(promise: nil)
            }
        }
    }

    /// Bound: the router wakes this connection when its project has CCS work; keepalives and the
    /// scheduled drain (CCS's periodic load balancing) start.
    private func joined(projectId: String, connection id: Int, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        router.register(project: projectId, connection: id, eventLoop: context.eventLoop) {
            let (handler, context) = loopBound.value
            guard context.channel.isActive else { return }
            handler.perform(handler.connection.pump(), context: context)
        }
        if let after = configuration.drainAfterSeconds {
            schedule(in: .seconds(after), context: context) { $0.drain() }
        }
        startKeepalive(context: context)
    }

    private func schedule(
        in delay: TimeAmount, context: ChannelHandlerContext, _ step: @escaping @Sendable (inout CCSConnection) -> [CCSConnection.Effect]
    ) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timers.append(
            context.eventLoop.scheduleTask(in: delay) {
                let (handler, context) = loopBound.value
                handler.perform(step(&handler.connection), context: context)
            })
    }

    /// Whitespace pings between stanzas, as CCS sends them (docs/xmpp.md).
    private func startKeepalive(context: ChannelHandlerContext) {
        guard configuration.keepaliveSeconds > 0 else { return }
        let interval = TimeAmount.seconds(configuration.keepaliveSeconds)
        let channel = context.channel
        keepalive = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            channel.writeAndFlush(channel.allocator.buffer(string: XMPPOutput.keepalive.text), promise: nil)
        }
    }

    private func stopTimers() {
        keepalive?.cancel()
        keepalive = nil
        for timer in timers { timer.cancel() }
        timers = []
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        if let projectId = connection.projectId, let id = connection.connection {
            router.unregister(project: projectId, connection: id)
        }
        connection.disconnect()  // un-acked items go to the next connection
        context.fireChannelInactive()
    }

    private func peer(_ context: ChannelHandlerContext) -> String { context.remoteAddress?.description ?? "-" }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The decoder's: the client broke the stream's rules, and hears which.
        if let error = error as? XMPPStreamError {
            perform(connection.fail(error), context: context)
            return
        }
        // A failed TLS handshake or a vanished client ends only this connection.
        logger.debug("XMPP connection error: \(error)", metadata: ["peer": "\(peer(context))"])
        stopTimers()
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension XMPPConnectionHandler: Sendable {}
