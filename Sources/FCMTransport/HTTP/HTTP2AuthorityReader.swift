// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// Hands an HTTP/2 request's `:authority` to its stream's `HTTPRequestHandler`, for the Host rule
/// (`AccessPolicy`; docs/security.md). NIO's HTTP/1 codec (`HTTP2FramePayloadToHTTP1ServerCodec`)
/// turns `:authority` into `host` only when the request has no `host` of its own, and drops it
/// otherwise, so a request whose two disagree (malformed, RFC 9113 §8.3.1) would be judged by
/// `host` alone. Sits in front of the codec; the first HEADERS frame is the request's.
final class HTTP2AuthorityReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    private let handler: HTTPRequestHandler
    private var read = false

    init(handler: HTTPRequestHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !read, case .headers(let headers) = unwrapInboundIn(data) {
            read = true
            handler.authority = headers.headers.first(name: ":authority")
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension HTTP2AuthorityReader: Sendable {}
