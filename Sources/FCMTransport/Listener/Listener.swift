// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOPosix

/// A listening socket and the connections it accepted: the one way fcm-emu listens, for HTTP and
/// HTTPS, the proxy and CCS alike. Every connection gets the same floor (idle
/// timeout, TLS, back pressure: `ConnectionFloor`) and each protocol brings only its own handlers
/// above it; stopping is the same for all: no new connection, each open one asked to finish
/// (`ChannelShouldQuiesceEvent`), and what is left after the grace period closed.
public final class Listener: Sendable {
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

    /// Binds and returns once the socket listens; `configure` adds each accepted connection's
    /// protocol on its event loop, above the `FlushCoalescer` every connection starts with and the
    /// `floor`.
    package static func bind(
        host: String, port: Int, group: any EventLoopGroup, floor: ConnectionFloor,
        configure: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> Listener {
        let connections = OpenConnections()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Writes count as progress only once the peer takes them (IdleTimeoutHandler).
            .childChannelOption(IdleTimeoutHandler.unsentLowWater.option, value: IdleTimeoutHandler.unsentLowWater.bytes)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                connections.track(channel)
                // Answers leave once per event-loop turn (FlushCoalescer.swift), beneath every
                // protocol's own handlers.
                do {
                    try channel.pipeline.syncOperations.addHandler(FlushCoalescer())
                    try floor.add(to: channel.pipeline.syncOperations)
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return configure(channel)
            }
            .bind(host: host, port: port)
            .get()
        return Listener(channel: channel, host: host, port: channel.localAddress?.port ?? port, connections: connections)
    }

    /// Stops accepting, then lets the open connections finish (`OpenConnections.quiesce`).
    public func close() async {
        await beginClose().value
    }

    /// Stops accepting and asks the open connections to finish; the task ends once they have, or
    /// the grace period has passed and the rest are closed. Listeners closed together wait out one
    /// grace period, not one each.
    public func beginClose() async -> Task<Void, Never> {
        try? await channel.close()
        let (connections, loop) = (connections, channel.eventLoop)
        return Task { await connections.quiesce(on: loop) }
    }
}
