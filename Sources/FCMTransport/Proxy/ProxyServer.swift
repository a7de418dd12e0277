// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1

/// The proxy listener: SDKs that honour `HTTPS_PROXY` reach the emulator with no
/// endpoint setting at all. Off by default in `serve` (`--set proxyPort=…`).
public final class ProxyServer: Sendable {
    private let listener: Listener
    public var port: Int { listener.port }

    private init(listener: Listener) { self.listener = listener }

    /// A setting that would make an open proxy.
    public struct OpenProxyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Parameters:
    ///   - tunnel: where CONNECTs to hosts fcm-emu does not stand in for may go.
    ///   - ownPorts: fcm-emu's other listening ports, which no tunnel reaches.
    ///   - record: told what the proxy did with each CONNECT and plain-HTTP request.
    public static func start(
        host: String, port: Int, standIns: StandIns, tunnel: TunnelPolicy, ownPorts: Set<Int>, responder: HTTPResponder,
        record: @escaping @Sendable (String) -> Void, group: any EventLoopGroup, idleTimeout: TimeAmount, logger: Logger
    ) async throws -> ProxyServer {
        let bare = HostRules.bare(host)
        if tunnel.anyHostOffThisMachine, !HostRules.isLoopback(bare.lowercased()) {
            throw OpenProxyError(
                description: "proxyTunnel=true while listening on \(host) would make an open proxy: anyone who reaches the port "
                    + "could tunnel anywhere. Name the hosts to tunnel in proxyTunnelHosts instead.")
        }
        let configuration = ProxyRequestHandler.Configuration(standIns: standIns, tunnel: tunnel, ownPorts: ownPorts)
        let floor = ConnectionFloor(idle: .bothWays(idleTimeout), logger: logger)
        let listener = try await Listener.bind(host: host, port: port, group: group, floor: floor) { channel in
            channel.eventLoop.makeCompletedFuture {
                let front = ProxyRequestHandler(configuration: configuration, record: record, logger: logger)
                try HTTPServer.addHTTP1(channel.pipeline.syncOperations, responder: responder, logger: logger, proxy: front)
            }
        }
        logger.info("HTTPS proxy listening", metadata: ["address": "\(host):\(listener.port)"])
        return ProxyServer(listener: listener)
    }

    /// Stops accepting connections; requests in flight are answered, tunnels closed after
    /// `OpenConnections.gracePeriod`.
    public func close() async { await listener.close() }

    /// `close` begun: the task ends when the connections have (`Listener.beginClose`).
    public func beginClose() async -> Task<Void, Never> { await listener.beginClose() }
}
