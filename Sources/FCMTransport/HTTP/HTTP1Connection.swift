// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1

/// An HTTP/1.1 connection's order and framing, on the plain, proxy and TLS ports alike, between
/// the request decoder (`HTTP1RequestDecoder`) and the emulator's `HTTPRequestHandler`: what
/// NIO's pipelining, protocol-error, header-validation and response encoding handlers did as
/// four, in one, so that an answer is encoded into one buffer and written once
/// (docs/benchmarks.md).
///
/// - One request at a time, answered in order (RFC 9112 §9.3.2): parts that arrive while an
///   answer is owed wait here, and the connection is not read again until it is written, so what
///   waits is bounded by what one read decoded.
/// - A malformed request (the decoder's `HTTPParserError`) is answered `400` with
///   `Connection: close` unless an answer has begun, as NIO's `HTTPServerProtocolErrorHandler`
///   answers it, after the answers to the requests before it; the handler behind closes the
///   connection.
/// - No request after an answer that says `Connection: close` is run (RFC 9112 §9.6).
/// - Shutdown (`ChannelShouldQuiesceEvent`): an idle connection closes once what it is writing
///   has gone, a busy one after its answer (a request still arriving is read to its end), which
///   says `connection: close`.
/// - Framing (RFC 9112 §6): no body for 1xx, 204 and 304, a 2xx to CONNECT (RFC 9110 §9.3.6),
///   nor HEAD (which keeps the GET's length); the answer's `Content-Length` when it has one, else
///   chunked on HTTP/1.1 (event streams) and until the close on HTTP/1.0. A CONNECT refused here
///   keeps its explanation and its length, where NIO's encoder dropped both and left the client
///   reading to the close. A header that is not a token, or a value
///   with CR, LF or NUL, is never written (RFC 9110 §5.1, §5.5): the answer goes without it.
///
/// Where the connection stands is one `HTTP1ConnectionState`, whose transitions return what
/// this handler does; the handler keeps only the answer being encoded.
final class HTTP1Connection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = IOData

    // Unchecked exclusivity: only this handler's methods, on its event loop, touch these, and
    // none calls out while it mutates one; the checks cost every request hundreds of instructions.

    /// The request and answer cycle, what waits behind it and how the connection ends.
    @exclusivity(unchecked) private var state = HTTP1ConnectionState()
    /// The method of the request being answered: a HEAD's answer carries no body.
    @exclusivity(unchecked) private var method = HTTPMethod.GET
    @exclusivity(unchecked) private var framing = Framing.plain
    /// The answer so far, written at its end or at a flush (one write per answer).
    @exclusivity(unchecked) private var pending: ByteBuffer?
    /// Its own place in the pipeline while it is in it, for answers handed over whole
    /// (`writeAnswer`) rather than written as parts.
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    /// The request handler right behind, and its place, when nothing stands between (not on the
    /// proxy port, where the proxy does): parts go to it directly (`deliver(to:context:)`).
    @exclusivity(unchecked) private var next: (handler: HTTPRequestHandler, context: ChannelHandlerContext)?
    /// Whether the handler behind may be handed parts directly (`HTTPServer.addHTTP1`).
    let delivers: Bool
    /// The decoder right in front, which hands this connection its parts directly while it is
    /// in the pipeline (`HTTPServer.addHTTP1` puts nothing between them).
    weak var decoder: HTTP1RequestDecoder?

    init(delivers: Bool = false) {
        self.delivers = delivers
    }

    private enum Framing {
        case plain, chunked, none
    }

    // MARK: Requests in

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(unwrapInboundIn(data), context: context)
    }

    /// A part from the request decoder right in front (`HTTP1RequestDecoder`, which hands them
    /// here directly while it reads: `channelRead` without the runtime cast out of `NIOAny`).
    func received(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch state.received(part) {
        case .pass:
            pass(part, context: context)
        case .passThenClose:
            pass(part, context: context)
            close(after: context.channel.allocator.buffer(capacity: 0), promise: nil, context: context)
        case .wait, .drop:
            break
        }
    }

    private func pass(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        if case .head(let head) = part { method = head.method }
        if let next {
            next.handler.received(part, context: next.context)
        } else {
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    /// The request handler right behind this one takes its parts directly from now on (nil: through
    /// the pipeline again), when this connection was made to (`delivers`). It is told when it is
    /// added and removed, so a handler put between them later could not be passed over: only
    /// `HTTPServer.addHTTP1` sets `delivers`, and nothing is ever added between.
    func deliver(to handler: HTTPRequestHandler?, context: ChannelHandlerContext?) {
        guard delivers else { return }
        if let handler, let context { next = (handler, context) } else { next = nil }
    }

    func read(context: ChannelHandlerContext) {
        if state.readRequested() { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // What is still being written (a big answer to a slow reader) goes out first.
        if state.quiesce() { close(after: context.channel.allocator.buffer(capacity: 0), promise: nil, context: context) }
    }

    /// Writes `bytes` and closes the connection once they are out.
    private func close(after bytes: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
        written.futureResult.cascade(to: promise)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(bytes)), promise: written)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        switch state.caught(error) {
        case .refuse(let answerBegun): refuse(error, answerBegun: answerBegun, context: context)
        case .pass: context.fireErrorCaught(error)
        case .wait, .ignore: break
        }
    }

    /// NIO's `HTTPServerProtocolErrorHandler`'s answer, byte for byte, unless an answer has begun.
    private func refuse(_ error: Error, answerBegun: Bool, context: ChannelHandlerContext) {
        if !answerBegun {
            var buffer = context.channel.allocator.buffer(capacity: 80)
            buffer.writeStaticString("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    /// After an answer: what waited, a malformed request's refusal, or the held read.
    private func followNext(context: ChannelHandlerContext) {
        while let next = state.next() {
            switch next {
            case .pass(let part): pass(part, context: context)
            case .refuse(let error, let answerBegun): refuse(error, answerBegun: answerBegun, context: context)
            case .read: context.read()
            }
        }
    }

    /// A tunnel takes the connection over (the proxy port): what was gathered goes out, and a
    /// held read is let go, as the tunnel reads from now on.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        next = nil
        decoder?.deliver(to: nil, context: nil)
        writePending(context: context)
        if state.clear() { context.read() }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        decoder?.deliver(to: self, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        _ = state.clear()
        pending = nil
        context.fireChannelInactive()
    }

    // MARK: Answers out

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code / 100 == 1 && head.status != .switchingProtocols:
            // An interim answer (`100 Continue`): out at once, and the final answer still to come.
            var buffer = context.channel.allocator.buffer(capacity: 64)
            buffer.writeString("HTTP/1.1 \(head.status.code) \(head.status.reasonPhrase)\r\n\r\n")
            writePending(context: context)
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        case .head(let head):
            var buffer = context.channel.allocator.buffer(capacity: 512)
            encode(head, into: &buffer)
            state.answerHeadWritten(closes: head.headers["connection"].contains { $0.equalsIgnoringASCIICase("close") })
            append(&buffer, context: context, promise: promise)
        case .body(let body):
            guard framing != .none, method != .HEAD else {
                promise?.succeed(())
                return
            }
            guard case .byteBuffer(var bytes) = body else {
                writePending(context: context)
                context.write(wrapOutboundOut(body), promise: promise)
                return
            }
            guard bytes.readableBytes > 0 else {
                append(context: context, promise: promise)
                return
            }
            if framing == .chunked {
                var framed = context.channel.allocator.buffer(capacity: bytes.readableBytes + 12)
                framed.writeString(String(bytes.readableBytes, radix: 16))
                framed.writeStaticString("\r\n")
                framed.writeBuffer(&bytes)
                framed.writeStaticString("\r\n")
                append(&framed, context: context, promise: promise)
            } else {
                append(&bytes, context: context, promise: promise)
            }
        case .end(let trailers):
            if framing == .chunked, method != .HEAD {
                var last = context.channel.allocator.buffer(capacity: 8)
                last.writeStaticString("0\r\n")
                for (name, value) in trailers ?? [:] where Self.isWritable(name, value) { last.writeHeader(name, value) }
                last.writeStaticString("\r\n")
                pending.setOrWriteBuffer(&last)
            }
            let answer = pending ?? context.channel.allocator.buffer(capacity: 0)
            pending = nil
            let action = state.answerEndWritten()
            guard action != .writeThenClose else {
                close(after: answer, promise: promise, context: context)
                return
            }
            if answer.readableBytes > 0 || promise != nil {
                context.write(wrapOutboundOut(.byteBuffer(answer)), promise: promise)
            }
            // `.write`: the answer came from a part `followNext` is passing on, and it carries on.
            if action == .writeThenNext { followNext(context: context) }
        }
    }

    func flush(context: ChannelHandlerContext) {
        writePending(context: context)
        context.flush()
    }

    // MARK: Whole answers

    /// Whether `writeAnswer` takes an answer of this status now; if not, it goes as parts. An
    /// interim status has a way of its own, and a quiescing connection's answer gains a header.
    func takesWholeAnswer(status: HTTPResponseStatus) -> Bool {
        context != nil && status.code >= 200 && state.ending != .quiescing
    }

    /// A whole answer from the `HTTPRequestHandler` behind: the bytes, state changes and flush its
    /// head, body and end would make as `HTTPServerResponsePart`s written and flushed, without
    /// three trips through the pipeline, the parts' wrapping and an `HTTPHeaders` made and edited
    /// on the way (docs/benchmarks.md). The fields are `fields` without their `Content-Length`s
    /// when `length` is given, nor their `Connection`s when `close`, then `Content-Length: length`
    /// and `Connection: close`, as `HTTPHeaders.replaceOrAdd` would leave them; the answer must
    /// have a length, either way. Only when `takesWholeAnswer(status:)`.
    func writeAnswer(
        status: HTTPResponseStatus, version: HTTPVersion, fields: [(String, String)], length: Int?, close: Bool, body: [UInt8],
        promise: EventLoopPromise<Void>?
    ) {
        guard let context else { return }
        let code = status.code
        let bodyless = code == 204 || code == 304 || code < 200 || (method == .CONNECT && (200..<300).contains(code))
        framing = bodyless ? .none : .plain
        let writesBody = !bodyless && method != .HEAD && !body.isEmpty
        let gathered = pending
        pending = nil
        // Taken apart at once: a tuple kept whole held a second reference to the buffer, and the
        // body's write copied the whole buffer to have one of its own (docs/benchmarks.md).
        var (buffer, closes) = Self.encode(
            Head(status: status, version: version, fields: fields, length: length, close: close, bodyless: bodyless),
            bodyBytes: writesBody ? body.count : 0, after: gathered, allocator: context.channel.allocator)
        state.answerHeadWritten(closes: closes)
        if writesBody { buffer.writeBytes(body) }
        let action = state.answerEndWritten()
        if action == .writeThenClose {
            self.close(after: buffer, promise: promise, context: context)
        } else {
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
            // `.write`: the answer came from a part `followNext` is passing on, and it carries on.
            if action == .writeThenNext { followNext(context: context) }
        }
        flush(context: context)
    }

    /// Adds to the answer being gathered; a write that wants to know when it is done goes out
    /// with everything before it.
    private func append(_ bytes: inout ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        pending.setOrWriteBuffer(&bytes)
        if promise != nil { append(context: context, promise: promise) }
    }

    private func append(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard let promise else { return }
        let bytes = pending ?? context.channel.allocator.buffer(capacity: 0)
        pending = nil
        context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: promise)
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let bytes = pending else { return }
        pending = nil
        context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: nil)
    }

    /// The status line and headers, framed as the answer's status, version and request ask.
    private func encode(_ head: HTTPResponseHead, into buffer: inout ByteBuffer) {
        var headers = head.headers
        let code = head.status.code
        let bodyless = (100..<200).contains(code) || code == 204 || code == 304 || (method == .CONNECT && (200..<300).contains(code))
        // Removing a name that is absent still walks and may copy the headers: ask first.
        let hasTransferEncoding = headers.contains(name: "transfer-encoding")
        if bodyless {
            if headers.contains(name: "content-length") { headers.remove(name: "content-length") }
            if hasTransferEncoding { headers.remove(name: "transfer-encoding") }
            framing = .none
        } else if headers.contains(name: "content-length") {
            if hasTransferEncoding { headers.remove(name: "transfer-encoding") }
            framing = .plain
        } else if head.version.major == 1, head.version.minor >= 1 {
            headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
            framing = .chunked
        } else {
            framing = .plain  // HTTP/1.0: the body runs to the close
        }
        if state.ending == .quiescing, head.isKeepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
        // The head is gathered as bytes and written to the buffer once: each of a ByteBuffer's
        // small writes checks its storage, and a head was thirty of them (docs/benchmarks.md).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        if head.version == .http1_1 {
            bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        } else {
            bytes.append(contentsOf: "HTTP/\(head.version.major).\(head.version.minor) ".utf8)
        }
        bytes.append(contentsOf: String(code).utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: head.status.reasonPhrase.utf8)
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        for (name, value) in headers { Self.appendField(name, value, to: &bytes) }
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        buffer.writeBytes(bytes)
    }

}

@available(*, unavailable)
extension HTTP1Connection: Sendable {}
