// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP2

/// One HTTP/2 connection's streams and its GOAWAY, so the connection ends as FCM's front end ends
/// it:
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
/// - Any other connection error NIO finds (a frame that breaks the protocol, its DoS heuristics'
///   ENHANCE_YOUR_CALM for a rapid reset) ends the connection: after its GOAWAY nothing more is
///   read (`ReadGate`) and the connection closes once the frame is written (RFC 9113 §5.4.1).
///   For too many streams, the streams accepted go on, for `errorGrace` at most.
///
/// It also holds back answers its peer's flow control keeps (HTTP2HeldAnswers.swift), and closes
/// the connection when it is idle (`idle`).
///
/// Used only on the connection's event loop.
final class HTTP2Connection {
    /// SETTINGS_MAX_CONCURRENT_STREAMS as the server advertises it (NIO's default settings, which
    /// FCM's limit matches).
    static let maxConcurrentStreams: Int =
        nioDefaultSettings.first { $0.parameter == .maxConcurrentStreams }.map { $0.value } ?? 100
    /// The opaque data of FCM's GOAWAY for too many streams.
    static let exceededStreamsDebugData = "exceeded_max_concurrent_streams"
    /// How long the streams accepted before FCM's GOAWAY for too many streams may go on, and the
    /// longest a connection error's GOAWAY may take to be written: then the connection closes,
    /// so a client cannot keep a connection it was told to leave by never ending a stream or
    /// never reading (RFC 9113 §5.4.1; docs/limits.md).
    static let errorGrace = TimeAmount.seconds(5)

    /// How many malformed requests a connection may send (`HTTP2StreamCodec`, each answered
    /// RST_STREAM `PROTOCOL_ERROR`) before it is let go as a misbehaving peer: the 200 stream
    /// errors NIO's own validation allowed (its `maximumConnectionGlitches`), since it no longer
    /// sees them (HTTP2FieldRules.swift).
    static let maxMalformedRequests = 200

    /// How a connection that met a connection error ends.
    enum Ending: Equatable {
        /// Too many streams: the connection still reads, for the streams it accepted.
        case drainingAcceptedStreams
        /// Anything else: nothing more is read, and the connection closes.
        case closing
    }

    /// The highest stream id the client opened and NIO accepted.
    private(set) var highestStreamID: HTTP2StreamID = .rootStream
    /// Streams open now, as NIO counts them against the limit.
    private(set) var openStreams = 0
    /// The last stream id of the GOAWAY sent, once one is.
    private(set) var goAwayLastStreamID: HTTP2StreamID?
    /// Set by a connection error; nil while there was none.
    private(set) var ending: Ending?
    /// The connection's channel, once `Events` is added.
    private(set) var channel: (any Channel)?
    /// What the streams hold of their answers (HTTP2HeldAnswers.swift).
    var held = HeldAnswers()
    /// Told of the bytes held at each change, on the event loop: tests await it instead of
    /// sleeping. The listeners set none.
    var onHeldBytes: ((Int) -> Void)?
    /// Malformed requests so far (`malformedRequest`).
    private(set) var malformedRequests = 0
    /// Streams with a wait or an event stream open (`HTTPRequestHandler.live`).
    var liveStreams = 0
    /// The listener's idle timeout (`IdleTimeoutHandler`): also how long held answers may go
    /// without draining.
    let idleTimeout: TimeAmount
    let log: AccessLog

    init(idleTimeout: TimeAmount, logger: Logger) {
        self.idleTimeout = idleTimeout
        log = AccessLog(logger: logger)
    }

    /// The handler after NIO's HTTP/2 handler: ends the violation NIO reports (its GOAWAY is
    /// already rewritten by then), and the connection when idle or when the server stops.
    var events: Events { Events(connection: self) }
    /// Told by NIO's multiplexer of the streams it opens and closes.
    func streamCounter(on eventLoop: any EventLoop) -> StreamCounter {
        StreamCounter(connection: NIOLoopBound(self, eventLoop: eventLoop))
    }
    /// The handler between TLS and NIO's HTTP/2 handler.
    var writer: GoAwayWriter { GoAwayWriter(connection: self) }
    /// The handler between TLS and NIO's HTTP/2 handler that stops the connection's reads.
    var readGate: ReadGate { ReadGate(connection: self) }
    /// Whether the connection may read: not once a connection error ends it.
    var reads: Bool { ending != .closing }

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

    /// NIO's GOAWAY for a connection error, as this connection sends it, and how the connection
    /// then ends. The last stream is the last one received (RFC 9113 §5.4.1), never above a
    /// GOAWAY that already went (§6.8), and 0 when NIO said so (a misbehaving peer's streams all
    /// end). FCM's words when the client opened more streams than advertised; NIO's error code
    /// otherwise.
    fileprivate func answer(_ error: GoAwayFrame.ConnectionError, allocator: ByteBufferAllocator) -> ByteBuffer {
        // NIO counts the streams that are open (and refuses the one that would pass the limit)
        // from the same state machine whose events reach `StreamCounter`, so a connection error while
        // the limit is reached is the violation. Another error in that instant would be worded so
        // too; the error code and last stream id would still be right.
        let exceeded = error.lastStreamID == .maxID && openStreams >= Self.maxConcurrentStreams
        let last = min(error.lastStreamID, highestStreamID, goAwayLastStreamID ?? .maxID)
        goAwayLastStreamID = last
        if ending != .closing { ending = exceeded ? .drainingAcceptedStreams : .closing }
        if exceeded {
            return GoAwayFrame.encode(
                lastStreamID: last, errorCode: .protocolError, debugData: Self.exceededStreamsDebugData, allocator: allocator)
        }
        return GoAwayFrame.encode(lastStreamID: last, errorCode: error.errorCode, allocator: allocator)
    }

    /// After a connection error's GOAWAY: closed once the frame is written, or at `errorGrace`
    /// for a peer that takes nothing; with streams to drain, once they end or at `errorGrace`.
    fileprivate func end(after written: EventLoopFuture<Void>, on channel: any Channel) {
        let loopBound = NIOLoopBound(channel, eventLoop: channel.eventLoop)
        channel.eventLoop.scheduleTask(in: Self.errorGrace) { loopBound.value.close(promise: nil) }
        if ending == .closing {
            written.whenComplete { _ in loopBound.value.close(promise: nil) }
        } else {
            closeIfDrained()
        }
    }

    /// No progress either way for the idle timeout (`IdleTimeoutHandler`). NIO's inline
    /// multiplexer hands its streams no such event (only `ChannelShouldQuiesceEvent`), so the
    /// connection decides for them as `HTTPRequestHandler` does over HTTP/1.1: a wait or an event
    /// stream keeps it (their own timeouts and heartbeats cover them), unless the connection holds
    /// answers up to its limit, which a peer that takes nothing never drains.
    private func idle() {
        guard liveStreams == 0 || !hasRoomForAnswers else { return }
        letGo(.noError, reason: "connection idle past its timeout")
    }

    /// Closes the connection for want of progress, after a GOAWAY naming the last stream received
    /// so the peer knows what was processed (RFC 9113 §9.1). A peer that reads nothing may never
    /// take the frame: the close waits `errorGrace` at most.
    func letGo(_ errorCode: HTTP2ErrorCode, debugData: String? = nil, reason: String) {
        guard let channel else { return }
        log.refused(reason, metadata: ["peer": .string(channel.remoteAddress?.description ?? "-")])
        // A second GOAWAY may not name a later stream than the first (RFC 9113 §6.8).
        let last = min(highestStreamID, goAwayLastStreamID ?? .maxID)
        goAwayLastStreamID = last
        let opaque = debugData.map { channel.allocator.buffer(string: $0) }
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: last, errorCode: errorCode, opaqueData: opaque))
        let loopBound = NIOLoopBound(channel, eventLoop: channel.eventLoop)
        channel.writeAndFlush(frame).whenComplete { _ in loopBound.value.close(promise: nil) }
        channel.eventLoop.scheduleTask(in: Self.errorGrace) { loopBound.value.close(promise: nil) }
    }

    /// A stream's request was malformed. Past `maxMalformedRequests` the peer gets what NIO sent
    /// when its stream errors passed that count: GOAWAY `ENHANCE_YOUR_CALM` naming stream 0 (none
    /// of a misbehaving peer's streams counts), written through NIO's handler so that
    /// `GoAwayWriter` ends the connection as after NIO's own (nothing more read, closed once the
    /// frame is written).
    func malformedRequest() {
        malformedRequests += 1
        guard malformedRequests == Self.maxMalformedRequests + 1, let channel else { return }
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: .rootStream, errorCode: .enhanceYourCalm, opaqueData: nil))
        channel.writeAndFlush(frame, promise: nil)
    }

    fileprivate func streamOpened(_ id: HTTP2StreamID) {
        openStreams += 1
        if id > highestStreamID { highestStreamID = id }
    }

    fileprivate func streamClosed() {
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

    /// Counts the streams NIO's multiplexer opens and closes, as it tells them (NIO's handler keeps
    /// its streams' events to itself when the multiplexer is inside it): the streams it made a
    /// channel for, which are the ones it accepted with their HEADERS.
    struct StreamCounter: NIOHTTP2StreamDelegate {
        let connection: NIOLoopBound<HTTP2Connection>

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            connection.value.streamOpened(id)
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            connection.value.streamClosed()
        }
    }

    /// Acts on the connection's idle timeout and the server's stop, and keeps NIO's connection
    /// errors to itself: the GOAWAY that says what went wrong has been written, and the
    /// connection ends as `answer` decided.
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
            case is IdleStateHandler.IdleStateEvent: connection.idle()
            case is ChannelShouldQuiesceEvent:
                // The server is stopping: every stream opened so far is answered, then the
                // connection closes (OpenConnections).
                connection.sendGoAway(GoAway(errorCode: 0), from: connection.highestStreamID, on: context.channel)
            default: break
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.dropHeldAnswers()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // Stream errors were answered on their stream (RST_STREAM); connection errors with a
            // GOAWAY. Either way the streams accepted before go on.
            if connection.goAwayLastStreamID == nil { context.fireErrorCaught(error) }
        }
    }

    /// Sits on the connection's bytes between TLS and NIO's HTTP/2 handler, which encodes each
    /// frame into a buffer of its own: a buffer that is exactly NIO's GOAWAY for a connection
    /// error is replaced by what `answer` says, and the connection's end begins; everything else
    /// passes untouched.
    final class GoAwayWriter: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData
        private let connection: HTTP2Connection

        fileprivate init(connection: HTTP2Connection) {
            self.connection = connection
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .byteBuffer(let buffer) = unwrapOutboundIn(data), let error = GoAwayFrame.connectionError(buffer) else {
                context.write(data, promise: promise)
                return
            }
            let frame = connection.answer(error, allocator: context.channel.allocator)
            let written = promise ?? context.eventLoop.makePromise()
            context.write(wrapOutboundOut(.byteBuffer(frame)), promise: written)
            connection.end(after: written.futureResult, on: context.channel)
        }
    }
}

@available(*, unavailable)
extension HTTP2Connection: Sendable {}

@available(*, unavailable)
extension HTTP2Connection.Events: Sendable {}

@available(*, unavailable)
extension HTTP2Connection.GoAwayWriter: Sendable {}
