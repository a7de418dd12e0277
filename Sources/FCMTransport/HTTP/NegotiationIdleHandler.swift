// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Closes an HTTPS connection that is idle before its protocol is chosen: during the TLS
/// handshake, before ALPN has laid HTTP/2's or HTTP/1.1's handlers, none of them is there to act
/// on `IdleTimeoutHandler`'s event, so a client that connects and sends nothing, or half a
/// ClientHello, kept its connection for good (docs/limits.md, "HTTP idle": the handshake is
/// included). `HTTPServer.configureHTTPS` removes it when ALPN has chosen; the protocol's
/// handlers act on the event from then on (`HTTPRequestHandler`, `HTTP2Connection.idle`).
final class NegotiationIdleHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension NegotiationIdleHandler: Sendable {}
