// SPDX-License-Identifier: Apache-2.0

import NIOCore

extension HTTP2Connection {
    /// Sits between TLS and NIO's HTTP/2 handler and holds the connection's reads while
    /// `HTTP2Connection.reads` says no: once a connection error ends the connection, nothing the
    /// peer sends is decoded any more (RFC 9113 §5.4.1: the connection is to close, and NIO's
    /// handler would otherwise go on decoding every frame that follows, PINGs answered and all).
    /// Bytes already read in the same turn are dropped.
    final class ReadGate: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        private let connection: HTTP2Connection

        init(connection: HTTP2Connection) {
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard connection.reads else { return }
            context.fireChannelRead(data)
        }

        func read(context: ChannelHandlerContext) {
            guard connection.reads else { return }
            context.read()
        }
    }
}

@available(*, unavailable)
extension HTTP2Connection.ReadGate: Sendable {}
