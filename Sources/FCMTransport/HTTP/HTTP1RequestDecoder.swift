// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1

/// The HTTP/1.1 ports' request decoder: requests in their plainest form are read here, and the
/// first request that is anything else hands the connection, from that request on, to NIO's
/// `HTTPRequestDecoder` (llhttp), which reads every form and refuses the malformed.
///
/// The plainest form (RFC 9112 §3, §5; `HTTP1RequestHead`) is what every client we know sends
/// for a send: a method NIO names, an origin-form target of URI characters, HTTP/1.1 or 1.0, and
/// fields of visible ASCII with at most one `Content-Length` and no `Transfer-Encoding`,
/// `Upgrade` or `Proxy-Connection`, each line ended by CR LF. It skips llhttp's callbacks per
/// field and per span and NIO's generic decoder handler (about 9,000 instructions a send,
/// docs/benchmarks.md). Whatever could be
/// read two ways (chunked bodies, obs-fold, bare LF, RFC 9112 §11.2) or is malformed is never
/// read here: llhttp reads it, so the parts and errors are llhttp's own.
///
/// What it reads, it hands on as llhttp would: the head once its blank line has come, the body
/// as each read brings it, then the end; after a request that does not keep the connection,
/// anything but CR or LF is llhttp's `closedConnection` (its "Data after `Connection: close`").
/// A head that has not ended within `HTTP1RequestHead.maximumBytes` goes to llhttp, so a peer
/// cannot make this decoder buffer more than that; one that begins with anything but a capital
/// letter (a TLS hello on the plain port) or has an LF without its CR goes at once.
///
/// It is a handler of its own rather than a `ByteToMessageDecoder`, whose generic handler cost
/// a send 4,000 instructions. Handing over puts NIO's `ByteToMessageHandler` with llhttp in its
/// place, named `ProxyRequestHandler.Names.decoder` (which the proxy removes for a tunnel), and
/// gives it what has come; from then on the pipeline is NIO's own, errors and all. Until then,
/// the only errors are llhttp's for the same bytes: `closedConnection`, and `invalidEOFState`
/// for a body cut short; after one, each read is `dataReceivedInErrorState`, as NIO's handler
/// reports it.
package final class HTTP1RequestDecoder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = HTTPServerRequestPart

    private enum Mode {
        /// Before a request; `scanned` bytes are known not to end its head.
        case head(scanned: Int)
        case body(remaining: Int, keepAlive: Bool)
        /// After a request that closes the connection.
        case closed
        case failed(HTTPParserError)
        /// llhttp's from here on; this handler is leaving the pipeline.
        case handedOver
    }

    // Unchecked exclusivity: only this handler's methods, on its event loop, touch these, and
    // none holds an access across a call out (the checks cost a request hundreds of instructions).

    @exclusivity(unchecked) private var mode = Mode.head(scanned: 0)
    /// What has come and is not read yet: part of a head, at most `HTTP1RequestHead.maximumBytes`
    /// and one read.
    @exclusivity(unchecked) private var pending: ByteBuffer?
    /// Set while parts are handed on: a read that arrives meanwhile is read by the loop running.
    @exclusivity(unchecked) private var decoding = false
    /// The connection right behind and its place, which take the parts directly
    /// (`deliver(to:context:)`).
    @exclusivity(unchecked) private var next: (connection: HTTP1Connection, context: ChannelHandlerContext)?
    private let leftOverBytesStrategy: RemoveAfterUpgradeStrategy

    /// `leftOverBytesStrategy`: what llhttp does with the bytes after an upgrade (a CONNECT on
    /// the proxy port) when it is removed; this decoder never reads an upgrade.
    package init(leftOverBytesStrategy: RemoveAfterUpgradeStrategy = .dropBytes) {
        self.leftOverBytesStrategy = leftOverBytesStrategy
    }

    /// Whether llhttp reads the connection now.
    package var isHandedOver: Bool {
        if case .handedOver = mode { return true }
        return false
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch mode {
        case .handedOver:
            context.fireChannelRead(data)
            return
        case .failed(let error):
            context.fireErrorCaught(ByteToMessageDecoderError.dataReceivedInErrorState(error, unwrapInboundIn(data)))
            return
        case .head, .body, .closed:
            break
        }
        var bytes = unwrapInboundIn(data)
        if pending == nil {
            pending = bytes
        } else {
            pending?.discardReadBytes()
            pending?.writeBuffer(&bytes)
        }
        guard !decoding else { return }
        decoding = true
        defer { decoding = false }
        decode(context: context)
    }

    /// The connection right behind takes the parts directly from now on (nil: through the
    /// pipeline again): told by it when it is added and removed (`HTTP1Connection.decoder`).
    func deliver(to connection: HTTP1Connection?, context: ChannelHandlerContext?) {
        if let connection, let context { next = (connection, context) } else { next = nil }
    }

    private func pass(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        if let next {
            next.connection.received(part, context: next.context)
        } else {
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    /// Reads what is pending, handing on each part as it is read.
    private func decode(context: ChannelHandlerContext) {
        while let buffer = pending, buffer.readableBytes > 0 {
            switch mode {
            case .handedOver, .failed:
                return
            case .closed:
                // llhttp skips CR and LF here and refuses anything else.
                let skipped = buffer.readableBytesView.prefix { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }.count
                pending?.moveReaderIndex(forwardBy: skipped)
                if skipped < buffer.readableBytes { fail(.closedConnection, context: context) }
            case .body(let remaining, let keepAlive):
                let count = min(remaining, buffer.readableBytes)
                guard let body = pending?.readSlice(length: count) else { return }
                let ends = count == remaining
                mode = ends ? Self.after(keepAlive: keepAlive) : .body(remaining: remaining - count, keepAlive: keepAlive)
                pass(.body(body), context: context)
                if ends { pass(.end(nil), context: context) }
            case .head(let scanned):
                switch buffer.withUnsafeReadableBytes({ HTTP1RequestHead.scan($0, from: scanned) }) {
                case .incomplete(let upTo):
                    mode = .head(scanned: upTo)
                    return
                case .otherForm:
                    handOver(context: context)
                case .complete(let end):
                    let head = buffer.withUnsafeReadableBytes { HTTP1RequestHead.parse(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
                    guard let request = head else {
                        handOver(context: context)
                        return
                    }
                    pending?.moveReaderIndex(forwardBy: end)
                    let length = request.contentLength
                    mode = length > 0 ? .body(remaining: length, keepAlive: request.keepAlive) : Self.after(keepAlive: request.keepAlive)
                    pass(.head(request.head), context: context)
                    if length == 0 { pass(.end(nil), context: context) }
                }
            }
        }
        if pending?.readableBytes == 0 { pending = nil }
    }

    /// The end of the connection: a head begun is llhttp's to end, a body cut short is llhttp's
    /// error for the same end.
    package func channelInactive(context: ChannelHandlerContext) {
        endOfInput(context: context) { $0.fireChannelInactive() }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .some(.inputClosed) = event as? ChannelEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        endOfInput(context: context) { $0.fireUserInboundEventTriggered(event) }
    }

    private func endOfInput(context: ChannelHandlerContext, then passOn: (ChannelHandlerContext) -> Void) {
        switch mode {
        case .head where (pending?.readableBytes ?? 0) > 0:
            handOver(context: context, then: passOn)
            return
        case .body:
            fail(.invalidEOFState, context: context)
        case .head, .closed, .failed, .handedOver:
            break
        }
        pending = nil
        passOn(context)
    }

    private static func after(keepAlive: Bool) -> Mode {
        keepAlive ? .head(scanned: 0) : .closed
    }

    private func fail(_ error: HTTPParserError, context: ChannelHandlerContext) {
        mode = .failed(error)
        pending = nil
        context.fireErrorCaught(error)
    }

    /// Puts llhttp in this handler's place, gives it what is pending and `passOn`'s event, and
    /// leaves: until then, anything that comes goes straight to it.
    private func handOver(context: ChannelHandlerContext, then passOn: (ChannelHandlerContext) -> Void = { _ in }) {
        mode = .handedOver
        let llhttp = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: leftOverBytesStrategy))
        do {
            try context.pipeline.syncOperations.addHandler(llhttp, name: ProxyRequestHandler.Names.decoder, position: .after(self))
        } catch {
            // Only a pipeline that is being torn down refuses a handler: nothing is left to read.
            pending = nil
            passOn(context)
            return
        }
        if let bytes = pending {
            pending = nil
            context.fireChannelRead(NIOAny(bytes))
        }
        passOn(context)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

@available(*, unavailable)
extension HTTP1RequestDecoder: Sendable {}
