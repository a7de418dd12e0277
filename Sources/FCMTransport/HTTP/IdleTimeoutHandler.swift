// SPDX-License-Identifier: Apache-2.0

import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fires `IdleStateHandler.IdleStateEvent.all` when a connection has made no progress in either
/// direction for the timeout; the handlers behind it decide what idle means.
/// Counting reads only (CCS, `ConnectionFloor.Idle.readsOnly`), it fires `.read` when nothing was
/// read for the timeout, as NIO's `IdleStateHandler(readTimeout:)` does.
///
/// NIO's `IdleStateHandler(readTimeout:)` counted only bytes read, so a client reading a big
/// answer slowly (the server's writes still draining into its socket) was cut off mid-body after
/// its 200. Here progress is bytes read, or bytes the kernel took from the channel's outbound
/// buffer: what was written through this handler minus what the channel still buffers, sampled
/// when the timer fires. The kernel's own send buffer (autotuned up to megabytes) would hide a
/// slow reader's progress for longer than the timeout, so listeners cap what it holds unsent
/// (`unsentLowWater`). A peer that reads nothing makes no progress and is still let go, between
/// one and two timeouts after its last byte moved. It sits first in the pipeline, so on TLS and
/// HTTP/2 connections it counts the bytes on the wire.
final class IdleTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Unchecked exclusivity: only this handler's methods, on its event loop, touch it, and
    /// `Progress`'s are pure; the checks cost each read and write of every connection.
    @exclusivity(unchecked) private var progress: Progress
    /// Whether bytes the peer took of ours count as progress; if not, only reads do.
    private let countsWrites: Bool
    private var timer: Scheduled<Void>?
    /// Told what each look decided, on the event loop, before it is acted on: tests await the
    /// handler's looks instead of sleeping. The listeners set none. Time is the event loop's
    /// (`EventLoop.now`), so an `EmbeddedEventLoop` moves it when a test advances it.
    var onLook: ((Progress.Action) -> Void)?

    init(timeout: TimeAmount, countsWrites: Bool = true) {
        progress = Progress(timeout: timeout, now: .now())
        self.countsWrites = countsWrites
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        progress.read(at: context.eventLoop.now)
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        progress.enqueued(unwrapOutboundIn(data).readableBytes)
        context.write(data, promise: promise)
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        progress.read(at: context.eventLoop.now)
        schedule(at: context.eventLoop.now + progress.timeout, context: context)
    }

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.look(context: context)
        }
    }

    private func look(context: ChannelHandlerContext) {
        timer = nil
        guard context.channel.isActive else { return }
        let buffered = countsWrites ? try? context.channel.syncOptions?.getOption(.bufferedWritableBytes) : nil
        let action = progress.look(at: context.eventLoop.now, buffered: buffered)
        onLook?(action)
        switch action {
        case .lookAgain(let deadline):
            schedule(at: deadline, context: context)
        case .idle:
            // Looked at again one timeout on, for a handler behind that keeps the connection
            // (a wait or an event stream, which have timers of their own).
            schedule(at: context.eventLoop.now + progress.timeout, context: context)
            context.fireUserInboundEventTriggered(countsWrites ? IdleStateHandler.IdleStateEvent.all : .read)
        }
    }
}

extension IdleTimeoutHandler {
    /// TCP_NOTSENT_LOWAT (Linux since 3.12, Darwin): the kernel takes more of an answer only
    /// while less than this waits unsent, so its buffer drains back into ours in steps this small
    /// and a reader's pace shows in `bufferedWritableBytes` (also less memory held per slow peer).
    static let unsentLowWater = (
        option: ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_NOTSENT_LOWAT))),
        bytes: SocketOptionValue(128 * 1024)
    )

    /// When the connection last moved, kept apart from I/O so it can be checked with any clock.
    struct Progress {
        enum Action: Equatable, Sendable {
            case lookAgain(NIODeadline)
            case idle
        }

        let timeout: TimeAmount
        private(set) var lastActivity: NIODeadline
        /// Bytes written through the handler, and how many of them had left at the last look.
        private var written: Int64 = 0
        private var sentAtLastLook: Int64 = 0

        init(timeout: TimeAmount, now: NIODeadline) {
            self.timeout = timeout
            lastActivity = now
        }

        mutating func read(at now: NIODeadline) { lastActivity = now }

        mutating func enqueued(_ bytes: Int) { written &+= Int64(bytes) }

        /// `buffered`: the bytes the channel still holds (nil when it cannot say).
        mutating func look(at now: NIODeadline, buffered: Int?) -> Action {
            if let buffered {
                let sent = written &- Int64(buffered)
                if sent != sentAtLastLook {
                    sentAtLastLook = sent
                    lastActivity = now
                }
            }
            let due = lastActivity + timeout
            return now >= due ? .idle : .lookAgain(due)
        }
    }
}

@available(*, unavailable)
extension IdleTimeoutHandler: Sendable {}
