// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
@testable import FCMServer
import FCMTesting
@testable import FCMTransport
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// The proxy over real sockets: where its tunnels may go, and bytes that
/// follow a CONNECT in the same packet.
@Suite("Proxy tunnels, live")
struct ProxyTunnelTests {

    /// An emulator with its TLS port, and its proxy with `tunnel`.
    static func withProxy(
        tunnel: @escaping (EmulatorServer) throws -> TunnelPolicy = { _ in TunnelPolicy() },
        _ body: (EmulatorServer, ProxyServer) async throws -> Void
    ) async throws {
        try await withLiveServer(tls: true) { server in
            let proxy = try await ProxyServer.start(
                host: "127.0.0.1", port: 0, standIns: Self.standIns(tls: server.https?.port),
                tunnel: try tunnel(server), ownPorts: Set([server.http.port, server.https?.port].compactMap { $0 }),
                responder: server.responder, record: { [emulator = server.emulator] in emulator.recordProxyConnect($0) },
                group: MultiThreadedEventLoopGroup.singleton,
                idleTimeout: .seconds(120), logger: .quiet)
            try await body(server, proxy)
            await proxy.close()
        }
    }

    /// The HTTP fronts' hosts on 443, served by the TLS port, and their names for plain HTTP.
    static func standIns(tls: Int?) -> StandIns {
        var standIns = StandIns()
        standIns.serve(FrontHosts.https, port: 443, by: tls)
        standIns.answerPlainHTTP(FrontHosts.all)
        return standIns
    }

    private static func connect(_ target: String) -> String { "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n" }

    /// A packet of CONNECTs to the proxy itself chained tunnels until descriptors ran out.
    @Test func noTunnelReachesTheEmulatorsOwnPortsSoNoneChains() async throws {
        try await Self.withProxy(tunnel: { server in
            TunnelPolicy(anyHostOffThisMachine: true, hosts: try TunnelPolicy.parseHosts("127.0.0.1:\(server.http.port)"))
        }) { server, proxy in
            for target in ["127.0.0.1:\(proxy.port)", "localhost:\(proxy.port)", "0.0.0.0:\(proxy.port)", "127.0.0.1:\(server.http.port)"] {
                let connection = try RawConnection(port: proxy.port)
                try connection.send(String(repeating: Self.connect(target), count: 50))
                let answer = try connection.readResponse()
                #expect(answer.status == 403, "\(target)")
                #expect(answer.body.contains("one of fcm-emu's own ports"), "\(target)")
                #expect(try connection.isClosedByPeer())
            }
        }
    }

    /// A service on this machine is reached only when named with its port, never by `proxyTunnel=true`.
    @Test func aServiceOnThisMachineNeedsAnEntryWithItsPort() async throws {
        let far = try await FarSide.start()
        let target = "127.0.0.1:\(far.port)"
        for (policy, reached) in [
            (TunnelPolicy(anyHostOffThisMachine: true), false), (TunnelPolicy(hosts: try TunnelPolicy.parseHosts("127.0.0.1")), false),
            (TunnelPolicy(hosts: try TunnelPolicy.parseHosts(target)), true),
        ] {
            try await Self.withProxy(tunnel: { _ in policy }) { _, proxy in
                let connection = try RawConnection(port: proxy.port)
                try connection.send(Self.connect(target) + "ping\n")
                let answer = try connection.readResponse()
                if reached {
                    #expect(answer.status == 200)
                    #expect(try connection.readResponse().body == "ping\n", "the bytes behind the CONNECT reached the far side")
                } else {
                    #expect(answer.status == 403)
                    #expect(answer.body.contains("is on this machine") && answer.body.contains("proxyTunnelHosts=\(target)"))
                }
            }
        }
        try await far.close()
    }

    @Test func tunnellingAnyHostIsRefusedBeyondLoopback() async throws {
        try await withLiveServer { server in
            await #expect(throws: ProxyServer.OpenProxyError.self) {
                _ = try await ProxyServer.start(
                    host: "0.0.0.0", port: 0, standIns: StandIns(),
                    tunnel: TunnelPolicy(anyHostOffThisMachine: true), ownPorts: [], responder: server.responder,
                    record: { _ in }, group: MultiThreadedEventLoopGroup.singleton, idleTimeout: .seconds(120), logger: .quiet)
            }
        }
    }

    /// A connection's first requests are read by the emulator's own decoder and a CONNECT by
    /// llhttp, which it hands over to (HTTP1RequestDecoder.swift): the proxy still finds the
    /// decoder to remove, and the bytes behind the CONNECT still reach the far side.
    @Test func aConnectAfterAPlainRequestOnTheSameConnectionStillTunnels() async throws {
        let far = try await FarSide.start()
        let target = "127.0.0.1:\(far.port)"
        try await Self.withProxy(tunnel: { _ in TunnelPolicy(hosts: try TunnelPolicy.parseHosts(target)) }) { _, proxy in
            let connection = try RawConnection(port: proxy.port)
            try connection.send("GET /emulator/v1/info HTTP/1.1\r\nHost: 127.0.0.1:\(proxy.port)\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            try connection.send(Self.connect(target) + "ping\n")
            #expect(try connection.readResponse().status == 200)
            #expect(try connection.readResponse().body == "ping\n", "the bytes behind the CONNECT reached the far side")
        }
        try await far.close()
    }

    /// A client that sends its TLS ClientHello in the same packet as the CONNECT waited for ever.
    @Test func aClientHelloSentWithTheConnectReachesTheServer() async throws {
        try await Self.withProxy { server, proxy in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(try #require(server.caCertificatePath))
            tls.applicationProtocols = ["http/1.1"]
            let context = try NIOSSLContext(configuration: tls)
            let group = MultiThreadedEventLoopGroup.singleton
            let handshake = group.next().makePromise(of: Void.self)
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(ConnectPreamble(target: "fcm.googleapis.com:443"))
                        try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: "fcm.googleapis.com"))
                        try sync.addHandler(HandshakeWatch(promise: handshake))
                    }
                }
                .connect(host: "127.0.0.1", port: proxy.port).get()
            let timeout = channel.eventLoop.scheduleTask(in: .seconds(10)) { handshake.fail(ChannelError.connectTimeout(.seconds(10))) }
            try await handshake.futureResult.get()
            timeout.cancel()
            try await channel.close()
        }
    }
}

/// Writes a CONNECT when the connection opens, without flushing, so the TLS handler's
/// ClientHello goes out with it; strips the proxy's answer before TLS sees the bytes.
private final class ConnectPreamble: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let target: String
    private var answer: ByteBuffer?

    init(target: String) { self.target = target }

    func channelActive(context: ChannelHandlerContext) {
        let request = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n"
        context.write(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        var pending = answer ?? context.channel.allocator.buffer(capacity: buffer.readableBytes)
        pending.writeBuffer(&buffer)
        let bytes = Array(pending.readableBytesView)
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) else {
            answer = pending
            return
        }
        guard String(decoding: bytes[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 200") else {
            context.fireErrorCaught(ChannelError.inputClosed)
            return
        }
        pending.moveReaderIndex(forwardBy: end + 4)
        // What came with the answer goes on before the handler leaves: a removed context no
        // longer has a next one, and a read fired from it is dropped (TLS then saw the record
        // after it as its first, `WRONG_VERSION_NUMBER`, when the answer and the ServerHello
        // arrived in one read).
        answer = nil
        if pending.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(pending)) }
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}

private final class HandshakeWatch: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // NIOTLS's TLSUserEvent.handshakeCompleted(negotiatedProtocol:), named rather than imported.
        if "\(event)".hasPrefix("handshakeCompleted") { promise.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { promise.fail(error) }
}

/// A server on this machine that answers each read with a response carrying it.
final class FarSide: Sendable {
    let channel: any Channel
    var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel) { self.channel = channel }

    static func start() async throws -> FarSide {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FarSide(channel: channel)
    }

    func close() async throws { try await channel.close() }

    private final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let line = unwrapInboundIn(data)
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: \(line.readableBytes)\r\n\r\n" + String(buffer: line)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer)), promise: nil)
        }
    }
}
