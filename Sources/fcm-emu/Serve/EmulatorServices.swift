// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import ServiceLifecycle
import Synchronization

/// `serve`, `exec` and `mcp` as one `ServiceGroup` (swift-service-lifecycle): SIGINT and SIGTERM
/// start a graceful shutdown, and the group stops its services one at a time, the last first.
/// The order `[Announcement, EmulatorService, FanOutService, ClockTick, listeners…, Autosave]`
/// for `serve` therefore stops the autosave first, then each listener (the proxy first; each
/// stops accepting and leaves its connections to finish, `ListenerService`), the tick, the
/// fan-out worker, then the emulator, which waits for those connections, exports and ends the
/// event loops; last, the ready file is withdrawn. `exec` and `mcp` put their command last, so it stops first. The group
/// traps the signals before any service starts, so a harness that sends SIGTERM the moment it
/// reads the ready file or the banner is heard; a listener that cannot bind ends the group with
/// its error, after what did start has stopped.
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

    /// The emulator's own services, `[EmulatorService, FanOutService, ClockTick, listeners…, Autosave]` (the
    /// autosave when the `autosave` setting asks for it), for `serve`, `exec` and `mcp` alike; a
    /// refused setting ends `running`'s event loops.
    static func emulator(_ running: RunningEmulator, _ options: ServeOptions, logger: Logger) async throws -> [any Service] {
        let autosave: Autosave?
        do {
            autosave = try SnapshotLifecycle.autosave(running, options, logger: logger)
        } catch {
            await running.stopEventLoops()
            throw error
        }
        return [EmulatorService(running: running, options: options, logger: logger)] + running.services + (autosave.map { [$0] } ?? [])
    }
}

/// The world, kept until the group shuts down; by then the listeners have stopped accepting
/// (they stop before it), so it waits for their connections to finish what they are answering,
/// exports the world if asked (`--export-on-exit`), and ends the event loops. A world that never
/// served (a listener could not bind) is not exported over the snapshot it may have come from.
struct EmulatorService: Service {
    let running: RunningEmulator
    let options: ServeOptions
    let logger: Logger

    /// `--export-on-exit` failed: the world the user asked to keep was not written.
    struct ExportFailed: Error {}

    func run() async throws {
        // Cancelled instead when the group is (a service failed): stop all the same.
        try? await gracefulShutdown()
        let served = running.startup.isComplete
        if served { logger.info("Stopping") }
        await running.drains.finished()
        // A CA made for this run only (no state directory) goes once its listeners have.
        running.startup.current.server?.removeOwnedFiles()
        let exported = served ? SnapshotLifecycle.exportAtExit(running, options, logger: logger) : true
        await running.stopEventLoops()
        guard exported else { throw ExportFailed() }
    }
}

/// The clock's tick on a wall clock: due deliveries, expiries and Doze's timers run as time
/// passes (`Emulator.tick`), until the group shuts down. `fcm-emu run` has no tick: its clock
/// moves only when a scenario moves it.
struct ClockTick: Service {
    let emulator: Emulator
    let every: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: every)
                guard !Task.isCancelled else { return }
                emulator.tick()
            }
        }
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

/// Tells the world the emulator is up once every listener has bound (the ready file, then the
/// banner), and takes the ready file back once everything else has stopped.
struct Announcement: Service {
    let readyFile: String?
    /// The info document and the banner, once the listeners have bound.
    let whenListening: @Sendable () async throws -> (info: JSONValue, banner: String)

    func run() async throws {
        let info: JSONValue
        let banner: String
        do {
            (info, banner) = try await cancelWhenGracefulShutdown { try await whenListening() }
        } catch {
            // A listener could not bind (the group ends with its error), or a stop came first:
            // nothing to announce, and a service ends only at its turn to stop.
            try? await gracefulShutdown()
            return
        }
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
