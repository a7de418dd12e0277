// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// A listener in front of an `HTTPResponder`: plain HTTP/1.1, or TLS from the first byte with
/// HTTP/2 or HTTP/1.1 chosen by ALPN (firebase-admin-node sends sendEach over HTTP/2 since 12.3,
/// as Python's send_each_async does; docs/http-v1.md).
public final class HTTPServer: Sendable {
    private let listener: Listener
    /// The address actually bound (port 0 becomes a free port).
    public var host: String { listener.host }
    public var port: Int { listener.port }
    /// Whether the socket still accepts connections: false once `close` or `beginClose` began.
    public var isListening: Bool { listener.channel.isActive }

    private init(listener: Listener) { self.listener = listener }

    /// Binds and starts serving; returns once the socket listens.
    public static func start(
        host: String, port: Int, responder: HTTPResponder, group: any EventLoopGroup,
        idleTimeout: TimeAmount = .seconds(120), tls: NIOSSLContext? = nil, clients: ClientConnections? = nil, logger: Logger
    ) async throws -> HTTPServer {
        let floor = ConnectionFloor(idle: .bothWays(idleTimeout), tls: tls, handshakeFaults: responder, logger: logger)
        let listener = try await Listener.bind(host: host, port: port, group: group, floor: floor) { channel in
            clients?.opened(channel, listener: tls == nil ? "http" : "https")
            guard tls != nil else {
                return channel.eventLoop.makeCompletedFuture {
                    try addHTTP1(channel.pipeline.syncOperations, responder: responder, logger: logger, clients: clients)
                }
            }
            return configureHTTPS(
                channel, connection: HTTP2Connection(idleTimeout: idleTimeout, logger: logger), responder: responder, logger: logger,
                clients: clients)
        }
        logger.info(tls == nil ? "HTTP listening" : "HTTPS (h2, http/1.1) listening", metadata: ["address": "\(host):\(listener.port)"])
        return HTTPServer(listener: listener)
    }

    /// The HTTPS port's protocols above the floor, as ALPN chooses: HTTP/2, whose streams and
    /// GOAWAY `connection` keeps (HTTP2Connection.swift), or HTTP/1.1. Tests lay it on listeners
    /// of their own, with a connection they watch.
    static func configureHTTPS(
        _ channel: any Channel, connection: HTTP2Connection, responder: HTTPResponder, logger: Logger, clients: ClientConnections? = nil
    ) -> EventLoopFuture<Void> {
        let http2 = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        // Until ALPN chooses, the idle timeout is acted on here (NegotiationIdleHandler.swift).
        let negotiating = NegotiationIdleHandler()
        do {
            try channel.pipeline.syncOperations.addHandler(negotiating)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let chosen = NIOLoopBound(negotiating, eventLoop: channel.eventLoop)
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { connection in
                connection.pipeline.syncOperations.removeHandler(chosen.value, promise: nil)
                // The multiplexer inside NIO's handler, which hands frames to the streams without a
                // trip through the connection's pipeline each, in its default settings: windows of
                // 65,535 bytes, and a stream unwritable with 8 KiB of its answer unsent, which
                // `HTTPRequestHandler` waits on.
                return connection.configureHTTP2Pipeline(
                    mode: .server, connectionConfiguration: connectionConfiguration, streamConfiguration: .init(),
                    streamDelegate: http2.value.streamCounter(on: connection.eventLoop)
                ) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try configureStream(stream, connection: http2.value, responder: responder, logger: logger, clients: clients)
                    }
                }.flatMapThrowing { _ in
                    let sync = connection.pipeline.syncOperations
                    let nio = try sync.handler(type: NIOHTTP2Handler.self)
                    try sync.addHandler(http2.value.writer, position: .before(nio))
                    try sync.addHandler(http2.value.readGate, position: .before(nio))
                    try sync.addHandler(http2.value.events)
                }
            },
            // HTTP/1.1 over TLS: the plain port's handlers, behind TLS's.
            http1ChannelConfigurator: { connection in
                connection.eventLoop.makeCompletedFuture {
                    connection.pipeline.syncOperations.removeHandler(chosen.value, promise: nil)
                    try addHTTP1(connection.pipeline.syncOperations, responder: responder, logger: logger, clients: clients)
                }
            }
        )
    }

    /// NIO's connection settings but for its check of header blocks, which it makes of requests
    /// and answers alike: the requests are checked by each stream's codec (HTTP2FieldRules.swift),
    /// and the emulator's own answers need none.
    private static let connectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration = {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.headerBlockValidation = .disabled
        return configuration
    }()

    /// An HTTP/2 stream: its frames as HTTP/1 parts (HTTP2StreamCodec.swift) and the emulator's
    /// handler; a stream above a GOAWAY's last one is refused instead.
    private static func configureStream(
        _ stream: any Channel, connection: HTTP2Connection, responder: HTTPResponder, logger: Logger, clients: ClientConnections?
    ) throws {
        let sync = stream.pipeline.syncOperations
        let id = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) ?? .rootStream
        let codec = HTTP2StreamCodec(connection: connection, stream: id)
        try sync.addHandler(codec, name: "http2-stream")
        guard connection.accepts(id) else {
            // Above a GOAWAY's last stream: refused, so the client may retry it.
            codec.resetStream(.refusedStream)
            return
        }
        let handler = HTTPRequestHandler(responder: responder, logger: logger)
        handler.clients = clients
        handler.http2 = codec
        try sync.addHandler(handler, name: "routes")
    }

    /// The plain port's connection as the listener builds it, on a channel of a test's or the
    /// bench's: the floor (idle timeout, reads and writes both counting; back pressure), then
    /// `addHTTP1`: the request decoder, `HTTP1Connection` (requests in order, the 400 for a
    /// malformed one, each answer encoded and written once) and the emulator's handler. The proxy
    /// port is the same with its CONNECT handler in front of the routes.
    package static func configurePlainHTTP(
        _ sync: ChannelPipeline.SynchronousOperations, responder: HTTPResponder, idleTimeout: TimeAmount, logger: Logger
    ) throws {
        try configurePlainHTTP(sync, responder: responder, idleTimeout: idleTimeout, logger: logger, proxy: nil)
    }

    static func configurePlainHTTP(
        _ sync: ChannelPipeline.SynchronousOperations, responder: HTTPResponder, idleTimeout: TimeAmount, logger: Logger,
        proxy: ProxyRequestHandler?
    ) throws {
        try ConnectionFloor(idle: .bothWays(idleTimeout), logger: logger).add(to: sync)
        try addHTTP1(sync, responder: responder, logger: logger, proxy: proxy)
    }

    /// HTTP/1.1 itself, on the plain and proxy ports and over TLS: the one pipeline of requests
    /// and answers. The decoder reads plain requests itself and the rest with llhttp
    /// (HTTP1RequestDecoder.swift); the proxy's hands what follows a CONNECT on to the tunnel.
    static func addHTTP1(
        _ sync: ChannelPipeline.SynchronousOperations, responder: HTTPResponder, logger: Logger, proxy: ProxyRequestHandler? = nil,
        clients: ClientConnections? = nil
    ) throws {
        typealias Names = ProxyRequestHandler.Names
        let leftOver: RemoveAfterUpgradeStrategy = proxy == nil ? .dropBytes : .forwardBytes
        let decoder = HTTP1RequestDecoder(leftOverBytesStrategy: leftOver)
        try sync.addHandler(decoder, name: Names.reader)
        // The decoder hands the connection right behind it its parts directly, and without the
        // proxy between them, the connection the request handler (`deliver(to:context:)`).
        let connection = HTTP1Connection(delivers: proxy == nil)
        connection.decoder = decoder
        try sync.addHandler(connection, name: Names.connection)
        if let proxy { try sync.addHandler(proxy, name: Names.proxy) }
        let handler = HTTPRequestHandler(responder: responder, logger: logger)
        handler.clients = clients
        handler.http1 = connection
        try sync.addHandler(handler, name: Names.routes)
    }

    /// Stops accepting connections, then lets the open ones finish what they are answering
    /// (`OpenConnections`) and closes them.
    public func close() async { await listener.close() }

    /// `close` begun: the task ends when the connections have (`Listener.beginClose`).
    public func beginClose() async -> Task<Void, Never> { await listener.beginClose() }
}
