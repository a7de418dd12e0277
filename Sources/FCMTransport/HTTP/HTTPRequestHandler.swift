// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Collects one HTTP/1.1 request at a time, hands it to the responder, writes the answer.
///
/// Peer input never traps here: an oversized body is answered with the responder's own 413 and
/// the connection closed; a connection idle past the timeout is closed; malformed HTTP is
/// answered 400 in front of this handler, by `HTTP1Connection`.
final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// One request's way from its head to its answer.
    private enum State {
        case idle
        /// The body as bytes, as `HTTPRequest` holds it: gathered in a `ByteBuffer`, it was copied
        /// out once more at the end.
        case receiving(HTTPRequestHead, [UInt8])
        /// The request was refused mid-body; ignore the rest and close after answering.
        case discarding
        /// Complete, and its answer waits for the channel to drain (`answerHeld`).
        case complete(HTTPRequestHead, HTTPRequest)
        /// Complete, and queued on its HTTP/2 connection until that holds fewer answers
        /// (HTTP2HeldAnswers.swift).
        case waitingForRoom(HTTPRequestHead, HTTPRequest)
    }

    /// Unchecked exclusivity: only this handler's own methods, on its event loop, touch it and
    /// `started`, never while another access is open; the checks cost every request hundreds of
    /// instructions.
    @exclusivity(unchecked) private var state = State.idle
    let responder: HTTPResponder
    let log: AccessLog
    /// A wait or an event stream in progress (HTTPRequestHandler+Live.swift).
    var live: Live? {
        didSet {
            // An HTTP/2 connection keeps one past its idle timeout, as this handler does over
            // HTTP/1.1 (`HTTP2Connection.idle`).
            guard let connection = http2?.connection, (oldValue == nil) != (live == nil) else { return }
            connection.liveStreams += live == nil ? -1 : 1
        }
    }
    /// The API of the live answer, for its access-log line (the answer itself comes later).
    var liveAPI = ""
    /// When the request being read began, for the access log.
    @exclusivity(unchecked) var started = NIODeadline.now()
    /// On an HTTP/2 stream: the codec in front, which knows the stream's connection, its id (for a
    /// `goaway` fault) and the request's `:authority`, and takes an answer whole (`writeAnswer`).
    var http2: HTTP2StreamCodec?
    /// A call a `hold` fault leaves unanswered: its place among the server's held calls, given
    /// back when the stream or connection ends (HTTPRequestHandler+StreamFaults.swift).
    var holding: LiveSlot?
    /// Who holds connections (docs/control-api.md, "Connections"); nil where nobody counts.
    var clients: ClientConnections?
    /// Over HTTP/1.1: the connection in front, which takes an answer whole (`writeAnswer`).
    var http1: HTTP1Connection?
    /// This stream's request was counted: its end is counted too.
    private var countedStream = false
    static let initialBodyCapacity = 16 * 1024
    /// The longest an injected latency may hold an answer, in wall time, however slow the clock.
    static let maxWallDelayMillis: Int64 = 10 * 60 * 1000

    init(responder: HTTPResponder, logger: Logger) {
        self.responder = responder
        log = AccessLog(logger: logger)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(unwrapInboundIn(data), context: context)
    }

    /// Where `HTTP1Connection` hands this handler its parts when nothing stands between them
    /// (`HTTP1Connection.deliver(to:context:)`): the same as `channelRead`, without the trip
    /// through the pipeline and the runtime cast of each part out of `NIOAny`, about 2,000
    /// instructions a request (docs/benchmarks.md).
    func received(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            started = .now()
            if let clients {
                // A stream's connection is its parent (a socket's parent is its listener); the first
                // request's User-Agent names the client.
                let connection = http2 == nil ? context.channel : context.channel.parent ?? context.channel
                clients.request(on: connection, userAgent: head.headers.first(name: "user-agent"), stream: http2 != nil)
                countedStream = http2 != nil
            }
            let declared = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            if declared > responder.maxBodyBytes {
                refuseTooLarge(context: context, head: head)
                return
            }
            // The declared length is the peer's word: reserve a little and grow with what arrives.
            var body: [UInt8] = []
            body.reserveCapacity(min(max(0, declared), Self.initialBodyCapacity))
            state = .receiving(head, body)
            continueIfExpected(head, context: context)
        case .body(let chunk):
            guard case .receiving(let head, var body) = state else { return }
            if body.count + chunk.readableBytes > responder.maxBodyBytes {
                refuseTooLarge(context: context, head: head)
                return
            }
            state = .idle  // drop the reference so the body is uniquely held while it grows
            // From the contiguous bytes, one copy: through the view it went a byte at a time.
            chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
            state = .receiving(head, body)
        case .end:
            guard case .receiving(let head, let body) = state else {
                if case .discarding = state { state = .idle }
                return
            }
            state = .idle
            var request = HTTPRequest(
                method: head.method.rawValue, target: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                body: body
            )
            request.authority = http2?.authority
            // Most requests are answered at once: only one that must wait is kept in `state`.
            guard mayAnswer(context: context) else {
                state = .complete(head, request)
                answerHeld(context: context)
                return
            }
            answer(request, head: head, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        answerHeld(context: context)
        if context.channel.isWritable { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    /// A peer that sends without reading must not make us buffer answers (docs/limits.md, "a slow
    /// reader"): the request is answered only while the channel is writable, and with it waits
    /// every pipelined one behind it (`HTTP1Connection` delivers the next only after this answer).
    /// On HTTP/2 the connection must also hold less than its limit of answers the peer's flow
    /// control keeps (HTTP2HeldAnswers.swift): the answer is made only then. Each of them calls
    /// this again when it changes.
    private func answerHeld(context: ChannelHandlerContext) {
        guard case .complete(let head, let request) = state, context.channel.isWritable else { return }
        if let connection = http2?.connection, !connection.hasRoomForAnswers {
            state = .waitingForRoom(head, request)
            connection.answerWhenRoom { [self] in
                guard case .waitingForRoom(let head, let request) = state else { return }
                // A stream reset meanwhile has nobody to answer.
                state = context.channel.isActive ? .complete(head, request) : .idle
                answerHeld(context: context)
            }
            return
        }
        state = .idle
        answer(request, head: head, context: context)
    }

    /// Whether a complete request is answered now, as `answerHeld` would answer it.
    private func mayAnswer(context: ChannelHandlerContext) -> Bool {
        guard context.channel.isWritable else { return false }
        guard let connection = http2?.connection else { return true }
        return connection.hasRoomForAnswers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        http1?.deliver(to: self, context: context)
        http2?.deliver(to: self, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        http1?.deliver(to: nil, context: nil)
        http2?.deliver(to: nil, context: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if countedStream, let connection = context.channel.parent {
            countedStream = false
            clients?.streamClosed(on: connection)
        }
        endLive()
        holding = nil
        context.fireChannelInactive()
    }

    private func answer(_ request: HTTPRequest, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let response = responder.respond(request)
        // Over HTTP/1.1 a request that cannot be followed by another closes its connection.
        let closes = head.version.major < 2 && !head.keepsConnection
        switch response.outcome {
        case .write:
            write(response, head: head, close: closes, context: context)
        case .writeThenClose:
            write(response, head: head, close: true, context: context)
        case .delay(let millis):
            // Emulator time to wall time: a paused or virtual clock (speed 0) does not wait.
            let wallDelay = Self.wallDelay(emulatorMillis: millis, speed: responder.clockSpeed())
            guard wallDelay > 0 else {
                write(response, head: head, close: closes, context: context)
                return
            }
            // Injected latency: `HTTP1Connection` holds later requests until this answer is written.
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(wallDelay)) {
                let (handler, context) = loopBound.value
                handler.write(response, head: head, close: closes, context: context)
            }
        case .goAway(let goAway):
            guard let http2, let connection = context.channel.parent else {
                // No GOAWAY frame on HTTP/1.1: a graceful one is an answer that closes, another a drop.
                guard goAway.isGraceful else { return drop(head: head, context: context) }
                return write(response, head: head, close: true, context: context)
            }
            // Graceful: this answer, then the GOAWAY; an error: the GOAWAY instead of an answer.
            if goAway.isGraceful { write(response, head: head, close: true, context: context) }
            http2.connection.sendGoAway(goAway, from: http2.stream, on: connection)
        case .resetStream(let code):
            if http2 != nil { resetStream(code, context: context) } else { drop(head: head, context: context) }
        case .reset:
            drop(head: head, context: context)
        case .hold(let slot):
            hold(slot, context: context)
        case .live(let answer):
            liveAPI = response.api
            begin(answer, head: head, context: context)
        }
    }

    /// An injected reset. On HTTP/2 this handler sits on a stream channel, and closing it resets
    /// only the stream; a reset fault stands for a dropped connection, which clients retry, so
    /// the connection (the stream's parent) closes. On HTTP/1 the parent is the listener.
    private func drop(head: HTTPRequestHead, context: ChannelHandlerContext) {
        let connection = head.version.major >= 2 ? context.channel.parent ?? context.channel : context.channel
        connection.close(promise: nil)
    }

    /// Emulator milliseconds as wall milliseconds at `speed`; a tiny speed makes a huge quotient,
    /// so the result is clamped before it becomes an integer.
    static func wallDelay(emulatorMillis: Int64, speed: Double) -> Int64 {
        guard speed > 0, emulatorMillis > 0 else { return 0 }
        let wall = Double(emulatorMillis) / speed
        guard wall.isFinite, wall < Double(maxWallDelayMillis) else { return maxWallDelayMillis }
        return Int64(wall)
    }

    /// A client that sends `Expect: 100-continue` waits for `100 Continue` before its body (curl
    /// for a second, then sends it anyway): a request within the limit is told to go on, over
    /// HTTP/1.1 and HTTP/2 alike, and one over it has had its 413 already. An HTTP/1.0 request's
    /// expectation is ignored, as RFC 9110 §10.1.1 requires.
    private func continueIfExpected(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        // Asked first: the values' array was an allocation on every request, nearly none of
        // which has the field.
        guard head.version.major >= 2 || head.version.minor >= 1, head.headers.contains(name: "expect"),
            head.headers["expect"].contains(where: { $0.equalsIgnoringASCIICase("100-continue") })
        else { return }
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
    }

    private func refuseTooLarge(context: ChannelHandlerContext, head: HTTPRequestHead) {
        state = .discarding
        var request = HTTPRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
        request.authority = http2?.authority
        write(responder.tooLarge(request), head: head, close: true, context: context)
    }

    func write(_ response: HTTPResponse, head request: HTTPRequestHead, close: Bool, context: ChannelHandlerContext) {
        log.answered(
            api: response.api, method: request.method.rawValue, target: request.uri, status: response.status, version: request.version, since: started,
            refusals: response.refusals)
        let version = request.version
        // A HEAD answer keeps the length the router gave it: the GET's, not its own empty body's.
        // A missing length joins the list before it becomes `HTTPHeaders`, whose `add` checks
        // the name byte by byte.
        let hasLength = response.headers.contains { $0.0.equalsIgnoringASCIICase("Content-Length") }
        let status = HTTPResponseStatus(statusCode: response.status, reasonPhrase: HTTPResponse.reasonPhrase(response.status))
        if let http1, version.major < 2, http1.takesWholeAnswer(status: status) {
            // The same bytes as the parts below, encoded by the connection in one buffer.
            let written = close ? context.eventLoop.makePromise(of: Void.self) : nil
            http1.writeAnswer(
                status: status, version: version, fields: response.headers,
                length: hasLength && request.method == .HEAD ? nil : response.body.count, close: close, body: response.body,
                promise: written)
            if let written {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
            }
            return
        }
        if let http2, version.major >= 2 {
            // Straight into frames (HTTP2StreamCodec.swift), without the parts below.
            http2.writeAnswer(
                status: response.status, fields: response.headers, length: hasLength && request.method == .HEAD ? nil : response.body.count,
                body: response.body, close: close)
            return
        }
        var headers = HTTPHeaders(hasLength ? response.headers : response.headers + [("Content-Length", String(response.body.count))])
        if hasLength, request.method != .HEAD {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        }
        // HTTP/2 forbids connection-specific headers; closing there ends only the stream.
        if close, version.major < 2 { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        if close {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            // A stream's or a wait's client has nothing to say; heartbeats and timeouts cover it.
            guard live == nil else { return }
            log.refused("connection idle past its timeout", metadata: ["peer": .string(peer(context))])
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        log.refused("connection error: \(error)", metadata: ["peer": .string(peer(context))])
        context.close(promise: nil)
    }

    /// The peer's address from the channel's stored property: on an HTTP/2 stream channel
    /// `context.remoteAddress` asks the stream's core, which traps (swift-nio-http2's
    /// `HTTP2StreamChannel.remoteAddress0`), and a client that resets a stream reaches this log.
    private func peer(_ context: ChannelHandlerContext) -> String {
        context.channel.remoteAddress?.description ?? "-"
    }
}

@available(*, unavailable)
extension HTTPRequestHandler: Sendable {}

extension HTTPRequestHead {
    /// Whether the connection can carry another request after this one's answer. A request that
    /// asks to `Upgrade` (the JDK's `HttpClient` sends `Upgrade: h2c` on every `http://` request) is
    /// answered in HTTP/1.1, which RFC 9110 §7.8 allows, and then the connection closes: NIO's
    /// decoder stops parsing once it has read an upgrade request, so a next request on the same
    /// connection would never be answered (apple/swift-nio#2570). Clients open a new connection.
    /// The same holds after a CONNECT, which the decoder takes for a switch of protocols too.
    var keepsConnection: Bool {
        isKeepAlive && !headers.contains(name: "Upgrade") && method != .CONNECT
    }
}
