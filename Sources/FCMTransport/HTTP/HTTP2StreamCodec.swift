// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// One HTTP/2 stream's frames as the HTTP/1 parts `HTTPRequestHandler` reads and writes: the
/// request's HEADERS and DATA in, the answer's HEADERS and DATA out, read and written as NIO's
/// codec (`HTTP2FramePayloadToHTTP1ServerCodec`) reads and writes them (HTTP2RequestHead.swift).
/// One handler where four stood (that codec, an `:authority` reader and a counter of held bytes),
/// each of which cost every stream its place in the pipeline and every part a trip through it
/// (docs/benchmarks.md). Beyond NIO's codec it:
///
/// - answers a malformed request (HTTP2FieldRules.swift) with RST_STREAM `PROTOCOL_ERROR`, as NIO
///   did while it checked the requests itself;
/// - keeps the request's `:authority` for the Host rule (`AccessPolicy`; docs/security.md): NIO's
///   codec turns it into `host` only when the request has none, so a request whose two disagree
///   (malformed, RFC 9113 §8.3.1) would be judged by `host` alone;
/// - counts the DATA written into the stream until NIO hands it to the socket, toward what the
///   connection holds for its peer's flow control (HTTP2HeldAnswers.swift);
/// - writes a whole answer as HEADERS and one DATA frame that ends the stream (`writeAnswer`),
///   where the parts made three frames;
/// - hands the request handler behind it its parts directly, as `HTTP1Connection` does.
///
/// Used only on the stream's event loop.
final class HTTP2StreamCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The stream's connection: its GOAWAY and the answers it holds.
    let connection: HTTP2Connection
    /// The stream's id, for a `goaway` fault.
    let stream: HTTP2StreamID
    /// The request's `:authority`, once its head is read.
    private(set) var authority: String?
    /// Whether the request's head was read: a later HEADERS frame is its trailers.
    @exclusivity(unchecked) private var readHead = false
    /// Whether the request was malformed and its stream reset: nothing more of it is read.
    @exclusivity(unchecked) private var refused = false
    /// Its own place in the stream's pipeline, for answers handed over whole.
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    /// The request handler right behind, and its place (`deliver(to:context:)`).
    @exclusivity(unchecked) private var next: (handler: HTTPRequestHandler, context: ChannelHandlerContext)?

    init(connection: HTTP2Connection, stream: HTTP2StreamID) {
        self.connection = connection
        self.stream = stream
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        next = nil
    }

    /// The request handler right behind this one takes its parts directly from now on (nil:
    /// through the pipeline again). It says so when it is added and removed; `HTTPServer` puts
    /// nothing between them.
    func deliver(to handler: HTTPRequestHandler?, context: ChannelHandlerContext?) {
        if let handler, let context { next = (handler, context) } else { next = nil }
    }

    // MARK: The request in

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let block):
            guard !refused else { return }
            // Trailers: nothing behind reads them, so the request simply ends.
            if readHead {
                if let fault = HTTP2FieldRules.trailersFault(block.headers) { return refuse(fault) }
                return pass(.end(nil), context: context)
            }
            readHead = true
            if let fault = HTTP2FieldRules.requestFault(block.headers) { return refuse(fault) }
            do {
                let request = try HTTP2RequestHead(block.headers, endStream: block.endStream)
                authority = request.authority
                pass(.head(request.head), context: context)
                if block.endStream { pass(.end(nil), context: context) }
            } catch {
                context.fireErrorCaught(error)
            }
        case .data(let frame):
            guard !refused, case .byteBuffer(let bytes) = frame.data else { return }
            if bytes.readableBytes > 0 { pass(.body(bytes), context: context) }
            if frame.endStream { pass(.end(nil), context: context) }
        default:
            // Nothing else has a part to become (RST_STREAM closes the stream, which the handler
            // behind is told of by the channel).
            break
        }
    }

    /// A malformed request (HTTP2FieldRules.swift) is answered as NIO answered it: RST_STREAM
    /// `PROTOCOL_ERROR`, and nothing of it reaches the handler behind (RFC 9113 §8.1.1). The
    /// connection counts it as NIO counted its stream errors (`HTTP2Connection.malformedRequest`).
    private func refuse(_ fault: any Error) {
        refused = true
        connection.log.refused("malformed HTTP/2 request: \(fault)", metadata: ["stream": "\(stream)"])
        resetStream(.protocolError)
        connection.malformedRequest()
    }

    private func pass(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        if let next {
            next.handler.received(part, context: next.context)
        } else {
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    // MARK: The answer out

    /// An answer written as parts (a live answer, `100 Continue`), one frame each, as NIO's codec
    /// writes them.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            var fields = HPACKHeaders()
            fields.reserveCapacity(head.headers.count + 1)
            fields.add(name: ":status", value: String(head.status.code))
            Self.add(head.headers, to: &fields)
            context.write(wrapOutboundOut(.headers(.init(headers: fields))), promise: promise)
        case .body(let body):
            writeData(body, endStream: false, promise: promise, context: context)
        case .end(let trailers):
            guard let trailers else {
                return writeData(
                    .byteBuffer(context.channel.allocator.buffer(capacity: 0)), endStream: true, promise: promise, context: context)
            }
            var fields = HPACKHeaders()
            Self.add(trailers, to: &fields)
            context.write(wrapOutboundOut(.headers(.init(headers: fields, endStream: true))), promise: promise)
        }
    }

    /// A whole answer: HEADERS, then the body in one DATA frame that ends the stream (HEADERS ends
    /// it when there is no body), flushed once. `length` replaces a `Content-Length` among
    /// `fields`, or is added when there is none (nil: the fields' own stands, a HEAD's). `close`
    /// closes the stream once the answer is written.
    func writeAnswer(status: Int, fields: [(String, String)], length: Int?, body: [UInt8], close: Bool) {
        guard let context else { return }
        var headers = HPACKHeaders()
        headers.reserveCapacity(fields.count + 2)
        headers.add(name: ":status", value: String(status))
        var hasLength = false
        for (name, value) in fields {
            if name.equalsIgnoringASCIICase("content-length") {
                hasLength = true
                headers.add(name: "content-length", value: length.map { String($0) } ?? value)
            } else if !HTTP2FieldRules.isConnectionSpecific(name) {
                headers.add(name: name.lowercased(), value: value)
            }
        }
        if !hasLength { headers.add(name: "content-length", value: String(length ?? body.count)) }
        let written = close ? context.eventLoop.makePromise(of: Void.self) : nil
        context.write(wrapOutboundOut(.headers(.init(headers: headers, endStream: body.isEmpty))), promise: body.isEmpty ? written : nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            writeData(.byteBuffer(buffer), endStream: true, promise: written, context: context)
        }
        context.flush()
        if let written {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
        }
    }

    /// An answer's fields as HTTP/2 carries them, as NIO's codec wrote them: names lowercased,
    /// the connection-specific ones dropped.
    private static func add(_ http1: HTTPHeaders, to fields: inout HPACKHeaders) {
        for (name, value) in http1 where !HTTP2FieldRules.isConnectionSpecific(name) { fields.add(name: name.lowercased(), value: value) }
    }

    /// RST_STREAM with `code` instead of an answer, which closes the stream once it is sent.
    func resetStream(_ code: HTTP2ErrorCode) {
        context?.writeAndFlush(wrapOutboundOut(.rstStream(code)), promise: nil)
    }

    /// DATA, counted toward what the connection holds until NIO has written it to the socket
    /// (the write's promise completes then, or fails when the stream or connection ends first).
    private func writeData(_ data: IOData, endStream: Bool, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        let frame = HTTP2Frame.FramePayload.data(.init(data: data, endStream: endStream))
        let bytes = data.readableBytes
        guard bytes > 0 else { return context.write(wrapOutboundOut(frame), promise: promise) }
        context.write(wrapOutboundOut(frame), promise: connection.holdUntilWritten(bytes, promise: promise, on: context.eventLoop))
    }
}

@available(*, unavailable)
extension HTTP2StreamCodec: Sendable {}
