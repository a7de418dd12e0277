// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import Logging
import NIOPosix

/// Starts an emulator server on free loopback ports (HTTPS too when `tls`), runs `body`, and
/// always shuts the server down. `wallClock` starts the clock's tick; an emulator made with a wall
/// clock (`clock: .wall`) then keeps time with the wall, and its clock speed is 1.
func withLiveServer(
    _ emulator: Emulator = Emulator(), maxBodyBytes: Int = 64 * 1024, tls: Bool = false, wallClock: Bool = false,
    _ body: (EmulatorServer) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.httpPort = 0
    configuration.tlsPort = tls ? 0 : nil
    configuration.maxBodyBytes = maxBodyBytes
    let server = try await EmulatorServer.start(
        emulator: emulator, configuration: configuration, group: MultiThreadedEventLoopGroup.singleton,
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
