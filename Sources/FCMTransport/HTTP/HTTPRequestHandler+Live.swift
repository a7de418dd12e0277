// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore
import NIOHTTP1
import Synchronization

/// Waits and event streams on a connection. The emulator calls back on whatever thread
/// changed the world; a doorbell turns any number of rings into one task on this channel's loop,
/// which then reads the world again.
extension HTTPRequestHandler {
    enum Live {
        case waiting(head: HTTPRequestHead, pending: PendingAnswer, watch: EventWatch, timeout: Scheduled<Void>)
        case streaming(body: StreamingBody, watch: StreamWatch, heartbeat: RepeatedTask)
    }

    /// Coalesces wake-ups: one pending task per connection however many events arrive.
    final class Doorbell: Sendable {
        private let rung = Atomic<Bool>(false)

        /// True when the caller should schedule the work (nobody has yet).
        func ring() -> Bool { !rung.exchange(true, ordering: .acquiringAndReleasing) }

        func answer() { rung.store(false, ordering: .releasing) }
    }

    func begin(_ answer: LiveAnswer, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let doorbell = Doorbell()
        let wake: @Sendable () -> Void = {
            guard doorbell.ring() else { return }
            eventLoop.execute {
                doorbell.answer()
                let (handler, context) = loop.value
                handler.wake(context: context)
            }
        }
        switch answer {
        case .wait(let pending):
            let timeout = eventLoop.scheduleTask(in: .milliseconds(pending.timeoutMillis)) {
                let (handler, context) = loop.value
                handler.finishWait(context: context, timedOut: true)
            }
            live = .waiting(head: head, pending: pending, watch: pending.watch(wake), timeout: timeout)
            pending.slot.onServerStop { eventLoop.execute { loop.value.0.finishWait(context: loop.value.1, timedOut: true) } }
            // The world may have changed between the route's look and the watch.
            wake()
        case .stream(let body):
            startStream(body, head: head, context: context)
            let heartbeat = eventLoop.scheduleRepeatedTask(
                initialDelay: .milliseconds(body.heartbeatMillis), delay: .milliseconds(body.heartbeatMillis)
            ) { _ in
                let (handler, context) = loop.value
                handler.beat(context: context)
            }
            // Called on this loop, with the loop's other streams, once per batch of logged events.
            let watch = body.watch(eventLoop) {
                let (handler, context) = loop.value
                handler.pump(context: context)
            }
            live = .streaming(body: body, watch: watch, heartbeat: heartbeat)
            body.slot.onServerStop { eventLoop.execute { loop.value.0.endStream(context: loop.value.1, farewell: true) } }
            pump(context: context)
        }
    }

    private func wake(context: ChannelHandlerContext) {
        switch live {
        case .waiting: finishWait(context: context, timedOut: false)
        case .streaming: pump(context: context)
        case nil: return
        }
    }

    /// Answers the wait if its condition holds, or unconditionally at the timeout. A check that
    /// has more to read goes on at a later turn of this loop, so other connections are served
    /// in between.
    func finishWait(context: ChannelHandlerContext, timedOut: Bool) {
        guard case .waiting(let head, let pending, let watch, let timeout) = live else { return }
        let response: HTTPResponse
        if timedOut {
            response = pending.expire()
        } else {
            switch pending.check() {
            case .answer(let answer): response = answer
            case .waiting: return
            case .readMore:
                let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.execute { loop.value.0.finishWait(context: loop.value.1, timedOut: false) }
                return
            }
        }
        watch.cancel()
        timeout.cancel()
        live = nil
        var answer = response
        answer.outcome = .write
        answer.api = liveAPI
        write(answer, head: head, close: head.version.major < 2 && !head.keepsConnection, context: context)
    }

    private func startStream(_ body: StreamingBody, head request: HTTPRequestHead, context: ChannelHandlerContext) {
        log.answered(api: liveAPI, method: request.method.rawValue, target: request.uri, status: 200, version: request.version, since: started)
        // No Content-Length: HTTP/1.1 goes chunked, HTTP/2 as DATA frames until the stream ends.
        let headers = HTTPHeaders([
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))), promise: nil)
        if request.version.major < 2 { Self.boundKernelBuffer(context.channel) }
        writeChunk(body.first, context: context)
    }

    /// Writes what the stream has while the connection can take it, a page per loop turn so
    /// other connections on this loop are served in between.
    func pump(context: ChannelHandlerContext) {
        guard case .streaming(let body, _, _) = live else { return }
        guard context.channel.isWritable else {
            body.slot.stalled()
            return
        }
        let (bytes, more) = body.next()
        writeChunk(bytes, context: context)
        guard more else { return }
        let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = loop.value
            handler.pump(context: context)
        }
    }

    /// What the kernel may hold for a stream that is not read: SO_SNDBUF (socket(7); Linux doubles
    /// it, and counts unsent and unacknowledged bytes alike) instead of TCP autotuning's up to
    /// 4 MiB (`tcp_wmem`), so 1,000 subscribers that never read pin at most about 1,000 × 128 KiB
    /// of kernel memory; in the process each holds at most NIO's write-buffer high watermark
    /// (64 KiB) and one page (`EventStreamReader.pageBytes`) before the channel stops being
    /// writable and `pump` stops reading. An HTTP/2 stream shares its connection's
    /// socket with other requests, so only HTTP/1 streams do this.
    static let streamSendBuffer = 64 << 10

    static func boundKernelBuffer(_ channel: any Channel) {
        _ = try? channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(streamSendBuffer))
    }

    private func beat(context: ChannelHandlerContext) {
        guard case .streaming(let body, _, _) = live, context.channel.isWritable else { return }
        writeChunk(body.heartbeat(), context: context)
    }

    private func writeChunk(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        if case .streaming(let body, _, _) = live { body.slot.wrote(bytes.count) }
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    /// The server stops: the farewell frame, the end of the body, and the close.
    func endStream(context: ChannelHandlerContext, farewell: Bool) {
        guard case .streaming(let body, _, _) = live else { return }
        if farewell { writeChunk(body.farewell, context: context) }
        endLive()
        let loop = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loop.value.close(promise: nil) }
    }

    /// Drops whatever is live: its watch, its timers and, with them, its slot.
    func endLive() {
        switch live {
        case .waiting(_, _, let watch, let timeout):
            watch.cancel()
            timeout.cancel()
        case .streaming(_, let watch, let heartbeat):
            watch.cancel()
            heartbeat.cancel()
        case nil: break
        }
        live = nil
    }
}
