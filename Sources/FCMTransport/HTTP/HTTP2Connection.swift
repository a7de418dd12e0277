// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// One HTTP/2 connection's streams and its GOAWAY, so the connection ends as FCM's front end ends
/// it (issue 22, item 10):
///
/// - A client that opens more streams than the 100 advertised in SETTINGS_MAX_CONCURRENT_STREAMS
///   gets GOAWAY PROTOCOL_ERROR with the debug data `exceeded_max_concurrent_streams` and the last
///   stream it accepted, as firebase-admin-node users see it ("GOAWAY - exceeded_max_concurrent_streams,
///   Error code: 1", https://github.com/firebase/firebase-admin-node/issues/2943). NIO answers the
///   same violation with its own GOAWAY (no debug data, last stream 2^31−1, which tells a client that
///   every stream it opened may have been processed); `GoAwayWriter` rewrites that frame.
/// - A `goaway` fault sends GOAWAY from a stream (`sendGoAway`).
/// - After any GOAWAY, streams above its last stream id are refused (RST_STREAM REFUSED_STREAM, so
///   the client may retry them, RFC 9113 §8.7), and the connection closes once the streams at or
///   below it have ended.
///
/// Used only on the connection's event loop.
final class HTTP2Connection {
    /// SETTINGS_MAX_CONCURRENT_STREAMS as the server advertises it (NIO's default settings, which
    /// FCM's limit matches).
    static let maxConcurrentStreams: Int =
        nioDefaultSettings.first { $0.parameter == .maxConcurrentStreams }.map { $0.value } ?? 100
    /// The opaque data of FCM's GOAWAY for too many streams.
    static let exceededStreamsDebugData = "exceeded_max_concurrent_streams"

    /// The highest stream id the client opened and NIO accepted.
    private(set) var highestStreamID: HTTP2StreamID = .rootStream
    /// Streams open now, as NIO counts them against the limit.
    private(set) var openStreams = 0
    /// The last stream id of the GOAWAY sent, once one is.
    private(set) var goAwayLastStreamID: HTTP2StreamID?
    private var channel: (any Channel)?

    init() {}

    /// The handler after NIO's HTTP/2 handler: counts streams from NIO's events, and ends the
    /// violation NIO reports (its GOAWAY is already rewritten by then).
    var events: Events { Events(connection: self) }
    /// The handler between TLS and NIO's HTTP/2 handler.
    var writer: GoAwayWriter { GoAwayWriter(connection: self) }

    /// Whether a stream the client opens now may be served; a stream above a sent GOAWAY's last
    /// stream id may not.
    func accepts(_ streamID: HTTP2StreamID) -> Bool {
        guard let last = goAwayLastStreamID else { return true }
        return streamID <= last
    }

    /// Sends GOAWAY from the stream `streamID` (a `goaway` fault). Graceful: every stream opened so
    /// far may finish. An error: the stream before this one is the last processed, and the
    /// connection closes once the frame is written.
    func sendGoAway(_ goAway: GoAway, from streamID: HTTP2StreamID, on connection: any Channel) {
        guard goAwayLastStreamID == nil else { return }
        let last: HTTP2StreamID =
            goAway.isGraceful ? highestStreamID : HTTP2StreamID(max(0, Int(streamID) - 2))
        goAwayLastStreamID = last
        var opaque: ByteBuffer?
        if let text = goAway.debugData { opaque = connection.allocator.buffer(string: text) }
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: last, errorCode: HTTP2ErrorCode(networkCode: Int(goAway.errorCode)), opaqueData: opaque))
        if goAway.isGraceful {
            connection.writeAndFlush(frame, promise: nil)
            closeIfDrained()
        } else {
            connection.writeAndFlush(frame).whenComplete { _ in connection.close(promise: nil) }
        }
    }

    /// NIO's GOAWAY for a connection error, as this connection sends it: FCM's words when the
    /// client opened more streams than advertised; nil to drop it, when a GOAWAY already went (a
    /// second may not raise the last stream id, RFC 9113 §6.8); the frame itself otherwise.
    fileprivate func rewrite(connectionErrorGoAway frame: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard goAwayLastStreamID == nil else { return nil }
        // NIO counts the streams that are open (and refuses the one that would pass the limit)
        // from the same state machine whose events `Events` counts, so a connection error while
        // the limit is reached is the violation. Another error in that instant would be worded so
        // too; the error code and last stream id would still be right.
        defer { closeIfDrained() }
        guard openStreams >= Self.maxConcurrentStreams else {
            goAwayLastStreamID = .maxID
            return frame
        }
        goAwayLastStreamID = highestStreamID
        return GoAwayFrame.encode(
            lastStreamID: highestStreamID, errorCode: .protocolError, debugData: Self.exceededStreamsDebugData, allocator: allocator)
    }

    private func streamOpened(_ id: HTTP2StreamID) {
        openStreams += 1
        if id > highestStreamID { highestStreamID = id }
    }

    private func streamClosed() {
        openStreams -= 1
        closeIfDrained()
    }

    /// After a GOAWAY, the connection closes when its last stream ends: on the next loop tick, so
    /// the frames that ended the stream are flushed first.
    private func closeIfDrained() {
        guard goAwayLastStreamID != nil, openStreams == 0, let channel else { return }
        self.channel = nil
        let loopBound = NIOLoopBound(channel, eventLoop: channel.eventLoop)
        channel.eventLoop.execute { loopBound.value.close(promise: nil) }
    }

    /// Counts streams from NIO's events and keeps NIO's connection errors to itself: the GOAWAY
    /// that says what went wrong has been written, and the connection stays open for the streams
    /// it accepted.
    final class Events: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Any
        private let connection: HTTP2Connection

        fileprivate init(connection: HTTP2Connection) {
            self.connection = connection
        }

        func handlerAdded(context: ChannelHandlerContext) {
            connection.channel = context.channel
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            switch event {
            case let created as NIOHTTP2StreamCreatedEvent: connection.streamOpened(created.streamID)
            case is StreamClosedEvent: connection.streamClosed()
            case is ChannelShouldQuiesceEvent:
                // The server is stopping: every stream opened so far is answered, then the
                // connection closes (OpenConnections).
                connection.sendGoAway(GoAway(errorCode: 0), from: connection.highestStreamID, on: context.channel)
            default: break
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // Stream errors were answered on their stream (RST_STREAM); connection errors with a
            // GOAWAY. Either way the streams accepted before go on.
            if connection.goAwayLastStreamID == nil { context.fireErrorCaught(error) }
        }
    }

    /// Sits on the connection's bytes between TLS and NIO's HTTP/2 handler, which encodes each
    /// frame into a buffer of its own: a buffer that is exactly NIO's GOAWAY for a connection
    /// error is replaced by what `rewrite` says; everything else passes untouched.
    final class GoAwayWriter: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData
        private let connection: HTTP2Connection

        fileprivate init(connection: HTTP2Connection) {
            self.connection = connection
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .byteBuffer(let buffer) = unwrapOutboundIn(data), GoAwayFrame.isConnectionErrorGoAway(buffer) else {
                context.write(data, promise: promise)
                return
            }
            guard let replacement = connection.rewrite(connectionErrorGoAway: buffer, allocator: context.channel.allocator) else {
                promise?.succeed()
                return
            }
            context.write(wrapOutboundOut(.byteBuffer(replacement)), promise: promise)
        }
    }
}

@available(*, unavailable)
extension HTTP2Connection: Sendable {}

@available(*, unavailable)
extension HTTP2Connection.Events: Sendable {}

@available(*, unavailable)
extension HTTP2Connection.GoAwayWriter: Sendable {}
