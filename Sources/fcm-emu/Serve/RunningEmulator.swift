// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMMCS
import FCMServer
import FCMTransport
import FCMXMPP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// What `serve`, `exec` and `mcp` run: the world, and the fan-out worker, the clock's tick and
/// the listeners as services of one group (EmulatorServices.swift), which binds them, and stops them the last
/// first. What they bound is in `startup`.
struct RunningEmulator {
    let emulator: Emulator
    /// The HTTP fronts' keys, which snapshots carry along with the world.
    let credentials: FrontCredentials
    let startup: Startup
    /// Where the closing listeners leave their connections, awaited before the export.
    let drains: Drains
    /// The fan-out worker, the tick, then the listeners: HTTP and TLS, XMPP, MCS, the proxy (which
    /// needs the others' ports).
    let services: [any Service]
    private let group: MultiThreadedEventLoopGroup

    /// Once per process: where and how log lines go.
    static func bootstrapLogging(_ options: ServeOptions) {
        let (level, format) = (options.logLevel, options.logFormat)
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                return JSONLogHandler(label: label, logLevel: level)
            }
        }
    }

    /// The world as the options and files make it, and the services that will serve it; nothing
    /// listens until the group runs them.
    static func prepare(_ options: ServeOptions, file: ConfigFile?, logger: Logger) throws -> RunningEmulator {
        let emulator = Emulator(settings: options.settings, clock: .wall(start: options.clockStart, wallMillis: FCMEmu.Serve.wallMillis))
        // Before an import, which may bring fan-outs still on their way.
        let fanOuts = FanOutService(emulator: emulator)
        try emulator.setClockSpeed(options.clockSpeed)
        if options.clockPaused { emulator.pauseClock() }
        var fronts = options.fronts
        let credentials = fronts.credentials ?? FrontCredentials(stateDirectory: fronts.stateDirectory, wallSeconds: fronts.wallSeconds)
        fronts.credentials = credentials
        SnapshotLifecycle.recover(options, logger: logger)
        if options.importDirectory != nil {
            // The snapshot is the world: projects and devices of config and --devices files are
            // not created on top of it (they would clash with what it holds).
            try SnapshotLifecycle.importAtStart(emulator, credentials, options, logger: logger)
        } else {
            try file?.preload(into: emulator)
            for path in options.preloadFiles { try ConfigFile.load(path: path).preload(into: emulator) }
        }
        for path in options.faultFiles { try FaultFile.load(path: path).forEach { try emulator.addFaultRule($0) } }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let xmppPorts = [options.xmppPort, options.xmppTestPort].compactMap { $0 }
        let startup = Startup(expected: .init(xmpp: xmppPorts.count, mcs: options.mcsPort != nil, proxy: options.proxyPort != nil))
        let drains = Drains()
        let listeners = Listeners(
            options: options, fronts: fronts, emulator: emulator, group: group, startup: startup, drains: drains, logger: logger)
        return RunningEmulator(
            emulator: emulator, credentials: credentials, startup: startup, drains: drains, services: [fanOuts] + listeners.makeServices(),
            group: group)
    }

    /// Every listener, once all have bound.
    func listening() async throws -> Startup.Bound { try await startup.all() }

    func stopEventLoops() async {
        try? await group.shutdownGracefully()
    }
}
