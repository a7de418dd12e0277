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
    private let emulator: Emulator
    private let router: CCSRouter
    private let configuration: XMPPServer.Configuration
    /// The project this connection is bound to, and the drain requests it has already honoured.
    private var project: String?
    private var drainsSeen = 0

    init(emulator: Emulator, router: CCSRouter, configuration: XMPPServer.Configuration) {
        framer = XMPPFramer(maxStanzaBytes: configuration.maxStanzaBytes)
        session = XMPPSession(emulator: emulator, laxAuth: configuration.laxAuth, prefixedForm: configuration.prefixedForm)
        self.emulator = emulator
        self.router = router
        self.configuration = configuration
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
            case .bound(let sender, _):
                startKeepalive(context: context)
                bind(sender: sender, context: context)
            case .drainStarted:
                scheduleDrainClose(context: context)
            case .close:
                keepalive?.cancel()
                context.close(promise: nil)
            }
        }
    }

    /// Joins the sender's CCS traffic: upstream messages and receipts flow to this connection.
    private func bind(sender: String, context: ChannelHandlerContext) {
        guard let (connection, projectId) = try? emulator.ccsConnect(sender: sender) else { return }
        session.connection = connection
        project = projectId
        drainsSeen = emulator.drainRequests(projectId: projectId)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        router.register(project: projectId, connection: connection, eventLoop: context.eventLoop) {
            let (handler, context) = loopBound.value
            handler.pump(context: context)
        }
        if let after = configuration.drainAfterSeconds {
            context.eventLoop.scheduleTask(in: .seconds(after)) {
                let (handler, context) = loopBound.value
                handler.startDraining(context: context)
            }
        }
        pump(context: context)
    }

    /// Sends what the core has for this connection, and drains when asked.
    private func pump(context: ChannelHandlerContext) {
        guard let connection = session.connection, let project, context.channel.isActive else { return }
        let drains = emulator.drainRequests(projectId: project)
        if drains > drainsSeen {
            drainsSeen = drains
            startDraining(context: context)
        }
        for item in emulator.ccsTake(connection) { perform([session.deliver(item)], context: context) }
    }

    /// CONNECTION_DRAINING, then the server closes the stream after the grace period (§5.3).
    private func startDraining(context: ChannelHandlerContext) {
        perform(session.drain(), context: context)
    }

    private func scheduleDrainClose(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(configuration.drainGraceMillis)) {
            let (handler, context) = loopBound.value
            handler.perform([.write("</stream:stream>"), .close], context: context)
        }
    }

    /// Whitespace pings between stanzas, as CCS sends them (FCM-WIRE.md §5.2).
    private func startKeepalive(context: ChannelHandlerContext) {
        guard configuration.keepaliveSeconds > 0 else { return }
        let interval = TimeAmount.seconds(configuration.keepaliveSeconds)
        let channel = context.channel
        keepalive = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            channel.writeAndFlush(channel.allocator.buffer(string: " "), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepalive?.cancel()
        if let connection = session.connection, let project {
            router.unregister(project: project, connection: connection)
            emulator.ccsDisconnect(connection)  // un-acked items go to the next connection
            session.connection = nil
        }
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
