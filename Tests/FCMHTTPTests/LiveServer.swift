// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import Logging
import NIOPosix

/// Starts an emulator server on free loopback ports (HTTPS too when `tls`), runs `body`, and
/// always shuts the server down. `wallClock` starts the clock's tick, so time passes as on a wall.
func withLiveServer(
    maxBodyBytes: Int = 64 * 1024, tls: Bool = false, wallClock: Bool = false, _ body: (EmulatorServer) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.httpPort = 0
    configuration.tlsPort = tls ? 0 : nil
    configuration.maxBodyBytes = maxBodyBytes
    let server = try await EmulatorServer.start(
        emulator: Emulator(), configuration: configuration, group: MultiThreadedEventLoopGroup.singleton,
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), wallClock: wallClock
    )
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}
