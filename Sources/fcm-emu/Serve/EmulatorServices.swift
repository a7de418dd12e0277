// SPDX-License-Identifier: Apache-2.0

import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import ServiceLifecycle
import Synchronization

/// `serve` and `exec` as one `ServiceGroup` (swift-service-lifecycle): SIGINT and SIGTERM start a
/// graceful shutdown, and the group stops its services one at a time, the last first. The order
/// `[Announcement, EmulatorService, Autosave]` for `serve` therefore stops the autosave first,
/// then exports and closes the emulator, then withdraws the ready file; `exec`'s
/// `[EmulatorService, Autosave, command]` stops the command first. The group traps the signals
/// before any service starts, so a harness that sends SIGTERM the moment it reads the ready file
/// or the banner is heard.
enum EmulatorServices {
    /// Runs `services` until a signal or one of them ends; a second signal meanwhile is ignored,
    /// so it does not cut the exit export short.
    static func run(_ services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The emulator's own services, `[EmulatorService, Autosave]` (the autosave when the `autosave`
    /// setting asks for it), for `serve` and `exec` alike; a refused setting stops `running`.
    static func emulator(_ running: RunningEmulator, _ options: ServeOptions, logger: Logger) async throws -> [any Service] {
        let autosave: Autosave?
        do {
            autosave = try SnapshotLifecycle.autosave(running, options, logger: logger)
        } catch {
            await running.stop()
            throw error
        }
        return [EmulatorService(running: running, options: options, logger: logger)] + (autosave.map { [$0] } ?? [])
    }
}

/// The listeners, run until the group shuts down; then they close (connections finish what they
/// are answering), the world is exported if asked (`--export-on-exit`), and the event loops end.
struct EmulatorService: Service {
    let running: RunningEmulator
    let options: ServeOptions
    let logger: Logger

    /// `--export-on-exit` failed: the world the user asked to keep was not written.
    struct ExportFailed: Error {}

    func run() async throws {
        // Cancelled instead when the group is (a service failed): stop all the same.
        try? await gracefulShutdown()
        logger.info("Stopping")
        await running.stopListening()
        let exported = SnapshotLifecycle.exportAtExit(running, options, logger: logger)
        await running.stopEventLoops()
        guard exported else { throw ExportFailed() }
    }
}

/// Writes the world every `seconds` (the `autosave` setting) until the group shuts down.
struct Autosave: Service {
    let seconds: Int64
    let save: @Sendable () -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(seconds))
                guard !Task.isCancelled else { return }
                save()
            }
        }
    }
}

/// Tells the world the emulator is up (the ready file, then the banner), and takes the ready file
/// back once everything else has stopped.
struct Announcement: Service {
    let readyFile: String?
    let info: JSONValue
    let banner: String

    func run() async throws {
        if let readyFile { try ReadyFile.write(info, to: readyFile) }
        // Unbuffered: a harness reading a pipe should see the banner now, not at exit.
        StandardStreams.write(banner)
        try? await gracefulShutdown()
        if let readyFile { ReadyFile.remove(readyFile) }
    }
}

/// The command `exec` runs, as a service: when it ends, the group shuts down; `code` is its status.
final class CommandService: Service {
    let code = Atomic<Int32>(0)
    private let body: @Sendable () async -> Int32

    init(_ body: @escaping @Sendable () async -> Int32) {
        self.body = body
    }

    func run() async throws {
        code.store(await body(), ordering: .releasing)
    }
}
