// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A listener in front of an `HTTPResponder`: plain HTTP/1.1, or TLS from the first byte with
/// HTTP/2 or HTTP/1.1 chosen by ALPN (firebase-admin-node sends sendEach over HTTP/2 since 12.3,
/// as Python's send_each_async does; docs/http-v1.md).
public final class HTTPServer: Sendable {
    public let channel: any Channel
    /// The address actually bound (port 0 becomes a free port).
    public let host: String
    public let port: Int
    private let connections: OpenConnections

    private init(channel: any Channel, host: String, port: Int, connections: OpenConnections) {
        self.channel = channel
        self.host = host
        self.port = port
        self.connections = connections
    }

    /// Binds and starts serving; returns once the socket listens.
    public static func start(
        host: String, port: Int, responder: HTTPResponder, group: any EventLoopGroup,
        idleTimeout: TimeAmount = .seconds(120), tls: NIOSSLContext? = nil, logger: Logger
    ) async throws -> HTTPServer {
        let connections = OpenConnections()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(IdleTimeoutHandler.unsentLowWater.option, value: IdleTimeoutHandler.unsentLowWater.bytes)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                connections.track(channel)
                guard let tls else {
                    return channel.eventLoop.makeCompletedFuture {
                        try configurePlainHTTP(
                            channel.pipeline.syncOperations, responder: responder, idleTimeout: idleTimeout, logger: logger)
                    }
                }
                // Streams and GOAWAY, if ALPN picks HTTP/2 (HTTP2Connection.swift).
                let http2 = NIOLoopBound(HTTP2Connection(), eventLoop: channel.eventLoop)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(SlowHandshakeHandler(responder: responder))
                    try sync.addHandler(IdleTimeoutHandler(timeout: idleTimeout))
                    let trust = TLSTrustLog.pair(logger: logger)
                    try sync.addHandler(trust.sniffer)
                    try sync.addHandler(NIOSSLServerHandler(context: tls))
                    try sync.addHandler(trust.log)
                    // No connection reads faster than it can write (issue 11, row 5).
                    try sync.addHandler(BackPressureHandler())
                }.flatMap {
                    // One configurator for HTTP/1.1 connections and for each HTTP/2 stream.
                    channel.configureCommonHTTPServerPipeline(
                        h2ConnectionChannelConfigurator: { connection in
                            connection.eventLoop.makeCompletedFuture {
                                let sync = connection.pipeline.syncOperations
                                let nio = try sync.handler(type: NIOHTTP2Handler.self)
                                try sync.addHandler(http2.value.writer, position: .before(nio))
                                try sync.addHandler(http2.value.events)
                            }
                        }
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            let sync = stream.pipeline.syncOperations
                            // An HTTP/2 stream has an id; an HTTP/1.1 connection (which this
                            // configurator also gets) must not be asked for one: NIO traps.
                            let id = http2.value.isNegotiated ? try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) : nil
                            if let id, !http2.value.accepts(id) {
                                // Above a GOAWAY's last stream: refused, so the client may retry it
                                // (written beneath the HTTP/1 codec, as a frame).
                                let codec = try sync.context(handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self)
                                codec.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.refusedStream)), promise: nil)
                                return
                            }
                            let handler = HTTPRequestHandler(responder: responder, logger: logger)
                            if let id { handler.http2 = (http2.value, id) }
                            try sync.addHandler(handler)
                        }
                    }
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        logger.info(tls == nil ? "HTTP listening" : "HTTPS (h2, http/1.1) listening", metadata: ["address": "\(host):\(bound)"])
        return HTTPServer(channel: channel, host: host, port: bound, connections: connections)
    }

    /// The plain HTTP/1.1 pipeline: idle timeout (reads and writes both count), no reading while
    /// writes wait, NIO's request decoder, `HTTP1Connection` (requests in order, the 400 for a
    /// malformed one, each answer encoded and written once), then the emulator's handler. The proxy port is the same with its CONNECT handler in front of the
    /// routes. Tests build it on an `EmbeddedChannel`.
    static func configurePlainHTTP(
        _ sync: ChannelPipeline.SynchronousOperations, responder: HTTPResponder, idleTimeout: TimeAmount, logger: Logger,
        proxy: ProxyRequestHandler? = nil
    ) throws {
        try sync.addHandler(IdleTimeoutHandler(timeout: idleTimeout))
        // No connection reads faster than it can write (issue 11, row 5).
        try sync.addHandler(BackPressureHandler(), name: ProxyRequestHandler.Names.backPressure)
        if let proxy {
            try ProxyRequestHandler.addCodec(sync, front: proxy)
        } else {
            try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try sync.addHandler(HTTP1Connection())
        }
        try sync.addHandler(HTTPRequestHandler(responder: responder, logger: logger), name: ProxyRequestHandler.Names.routes)
    }

    /// Stops accepting connections, then lets the open ones finish what they are answering
    /// (`OpenConnections`) and closes them.
    public func close() async {
        try? await channel.close()
        await connections.quiesce(on: channel.eventLoop)
    }
}
