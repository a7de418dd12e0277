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

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    public static func start(
        host: String, port: Int, targets: ProxyHosts.Targets, tunnelOthers: Bool, responder: HTTPResponder, emulator: Emulator,
        group: any EventLoopGroup, idleTimeout: TimeAmount, logger: Logger
    ) async throws -> ProxyServer {
        let configuration = ProxyRequestHandler.Configuration(targets: targets, tunnelOthers: tunnelOthers)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let names = ProxyRequestHandler.names
                    try sync.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try sync.addHandler(HTTPResponseEncoder(), name: names.encoder)
                    try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: names.decoder)
                    try sync.addHandler(
                        ProxyRequestHandler(configuration: configuration, emulator: emulator, logger: logger), name: names.handler)
                    try sync.addHandler(HTTPRequestHandler(responder: responder, logger: logger), name: names.routes)
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        logger.info("HTTPS proxy listening", metadata: ["address": "\(host):\(bound)"])
        return ProxyServer(channel: channel, port: bound)
    }

    public func close() async {
        try? await channel.close()
    }
}
