// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The proxy listener (issue 10): SDKs that honour `HTTPS_PROXY` reach the emulator with no
/// endpoint setting at all. Off by default in `serve` (`--set proxyPort=…`).
public final class ProxyServer: Sendable {
    public let channel: any Channel
    public let port: Int
    private let connections: OpenConnections

    private init(channel: any Channel, port: Int, connections: OpenConnections) {
        self.channel = channel
        self.port = port
        self.connections = connections
    }

    /// A setting that would make an open proxy.
    public struct OpenProxyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Parameters:
    ///   - tunnel: where CONNECTs to hosts fcm-emu does not stand in for may go.
    ///   - ownPorts: fcm-emu's other listening ports, which no tunnel reaches.
    public static func start(
        host: String, port: Int, targets: ProxyHosts.Targets, tunnel: TunnelPolicy, ownPorts: Set<Int>, responder: HTTPResponder,
        emulator: Emulator, group: any EventLoopGroup, idleTimeout: TimeAmount, logger: Logger
    ) async throws -> ProxyServer {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if tunnel.anyHostOffThisMachine, !HostRules.isLoopback(bare.lowercased()) {
            throw OpenProxyError(
                description: "proxyTunnel=true while listening on \(host) would make an open proxy: anyone who reaches the port "
                    + "could tunnel anywhere. Name the hosts to tunnel in proxyTunnelHosts instead.")
        }
        let configuration = ProxyRequestHandler.Configuration(targets: targets, tunnel: tunnel, ownPorts: ownPorts)
        let connections = OpenConnections()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(IdleTimeoutHandler.unsentLowWater.option, value: IdleTimeoutHandler.unsentLowWater.bytes)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                connections.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let front = ProxyRequestHandler(configuration: configuration, emulator: emulator, logger: logger)
                    try HTTPServer.configurePlainHTTP(
                        channel.pipeline.syncOperations, responder: responder, idleTimeout: idleTimeout, logger: logger, proxy: front)
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        logger.info("HTTPS proxy listening", metadata: ["address": "\(host):\(bound)"])
        return ProxyServer(channel: channel, port: bound, connections: connections)
    }

    /// Stops accepting connections; requests in flight are answered, tunnels closed after
    /// `OpenConnections.gracePeriod`.
    public func close() async {
        try? await channel.close()
        await connections.quiesce(on: channel.eventLoop)
    }
}
