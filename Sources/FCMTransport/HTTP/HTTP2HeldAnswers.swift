// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// Back pressure for HTTP/2 answers (docs/limits.md, "HTTP/2 answers held"). Over HTTP/1.1 an
/// answer waits while its socket is not writable; over HTTP/2 the socket stays writable while
/// NIO's handler keeps every DATA byte the peer's flow-control window does not let go (RFC 9113
/// §5.2, §6.9), so a client that advertises SETTINGS_INITIAL_WINDOW_SIZE 0 and opens 100 streams
/// for 8 MiB list pages made the server hold 900 MB for the 11 KB it sent. Here a connection
/// counts the answer bytes written into its streams that have not reached the socket yet, and
/// past `maxHeldBytes` no further request on it is answered (each waits its turn) until some
/// drain. It goes on reading: the WINDOW_UPDATEs that drain them come on the same connection, and
/// what it reads meanwhile is bounded (100 streams, each request within `maxBodyBytes`).
///
/// A peer that lets nothing drain is let go: with nothing read either, by the idle timeout
/// (`IdleTimeoutHandler`, then `HTTP2Connection.idle`); one that keeps sending frames, by
/// `watchForStall`, when a whole idle timeout passed with the limit reached and nothing drained
/// (GOAWAY ENHANCE_YOUR_CALM `flow_control_window_shut`, then the close).
extension HTTP2Connection {
    /// The most answer bytes one connection holds for its peer's flow control before it stops
    /// answering. An answer is written whole, so the bound is this plus the largest answer (an
    /// 8 MiB list page, docs/limits.md).
    static let maxHeldBytes = 16 << 20
    /// The opaque data of the GOAWAY that lets such a peer go.
    static let windowShutDebugData = "flow_control_window_shut"

    /// What the connection's streams hold of their answers.
    struct HeldAnswers {
        /// Bytes written into streams that NIO has not yet handed to the socket.
        var bytes = 0
        /// Answers waiting for `bytes` to fall under the limit, in the order their requests reached
        /// their streams.
        var waiting = CircularBuffer<() -> Void>()
        /// Whether held bytes left (sent, or dropped with their stream) since the last stall look.
        var drainedSinceLook = false
        var stallLook: Scheduled<Void>?
    }

    /// Whether a request may be answered now: the connection holds less than `maxHeldBytes`.
    var hasRoomForAnswers: Bool { held.bytes < Self.maxHeldBytes }

    /// Calls `answer` once the connection has room, after those that waited before it.
    func answerWhenRoom(_ answer: @escaping () -> Void) {
        held.waiting.append(answer)
        answerWaiting()
    }

    /// Counts `bytes` of DATA written into a stream (`HTTP2StreamCodec`) until NIO has written
    /// them to the socket: the promise returned, which completes `promise`, completes then, or
    /// fails when the stream or connection ends first.
    func holdUntilWritten(_ bytes: Int, promise: EventLoopPromise<Void>?, on eventLoop: any EventLoop) -> EventLoopPromise<Void> {
        let written = promise ?? eventLoop.makePromise()
        holding(bytes)
        written.futureResult.assumeIsolated().whenComplete { [self] _ in released(bytes) }
        return written
    }

    /// The connection closed: nothing waits any more (the waiting answers hold their streams'
    /// handlers, which hold this connection).
    func dropHeldAnswers() {
        held.waiting.removeAll()
        held.stallLook?.cancel()
        held.stallLook = nil
    }

    private func answerWaiting() {
        while hasRoomForAnswers, let next = held.waiting.popFirst() { next() }
    }

    private func holding(_ bytes: Int) {
        held.bytes += bytes
        onHeldBytes?(held.bytes)
        if !hasRoomForAnswers { watchForStall() }
    }

    private func released(_ bytes: Int) {
        held.bytes -= bytes
        held.drainedSinceLook = true
        onHeldBytes?(held.bytes)
        answerWaiting()
    }

    /// While the limit is reached, looks once per idle timeout whether anything drained.
    private func watchForStall() {
        guard held.stallLook == nil, let channel else { return }
        held.drainedSinceLook = false
        held.stallLook = channel.eventLoop.assumeIsolated().scheduleTask(in: idleTimeout) { [self] in
            held.stallLook = nil
            guard !hasRoomForAnswers else { return }
            guard held.drainedSinceLook else {
                // The peer took nothing of what it asked for in a whole idle timeout; the frames
                // it sends meanwhile count as progress to `IdleTimeoutHandler`, not here.
                letGo(
                    .enhanceYourCalm, debugData: Self.windowShutDebugData,
                    reason: "HTTP/2 answers held past the idle timeout: the peer's flow-control windows stay shut")
                return
            }
            watchForStall()
        }
    }
}
