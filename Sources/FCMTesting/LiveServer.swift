// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMServer
import Logging
import NIOCore
import NIOPosix

/// An emulator server on real sockets, for what only a connection shows (framing, TLS, HTTP/2,
/// backpressure, the access policy). It listens on loopback only, on ports the kernel picks free
/// (port 0), so tests run in parallel and never meet a server they did not start.
public enum LiveServer {
    /// Starts a server: HTTP, and HTTPS too when `tls`. `wallClock` starts the clock's tick (an
    /// emulator made with `clock: .wall` then keeps time with the wall); without it the clock
    /// moves only when told. The caller shuts it down: prefer `withLiveServer`, which always does.
    public static func start(
        _ emulator: Emulator = Emulator(), maxBodyBytes: Int = 64 * 1024, tls: Bool = false, wallClock: Bool = false,
        allowedHosts: [String] = [], controlToken: ControlTokenSetting = .automatic, fronts: FrontConfiguration = FrontConfiguration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .quiet
    ) async throws -> EmulatorServer {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.httpPort = 0
        configuration.tlsPort = tls ? 0 : nil
        configuration.maxBodyBytes = maxBodyBytes
        configuration.allowedHosts = allowedHosts
        configuration.controlToken = controlToken
        return try await EmulatorServer.start(
            emulator: emulator, configuration: configuration, fronts: fronts, group: group, logger: logger, wallClock: wallClock)
    }
}

/// Starts a server as `LiveServer.start` does, runs `body`, and shuts the server down whether
/// `body` returned or threw, so no test leaves a listener or a temporary CA behind.
public func withLiveServer(
    _ emulator: Emulator = Emulator(), maxBodyBytes: Int = 64 * 1024, tls: Bool = false, wallClock: Bool = false,
    allowedHosts: [String] = [], controlToken: ControlTokenSetting = .automatic, fronts: FrontConfiguration = FrontConfiguration(),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .quiet,
    _ body: (EmulatorServer) async throws -> Void
) async throws {
    let server = try await LiveServer.start(
        emulator, maxBodyBytes: maxBodyBytes, tls: tls, wallClock: wallClock, allowedHosts: allowedHosts, controlToken: controlToken,
        fronts: fronts, group: group, logger: logger)
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}
