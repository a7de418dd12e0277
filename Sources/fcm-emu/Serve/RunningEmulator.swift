// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
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

/// Everything `serve` starts, started and stopped as one: the emulator, the HTTP and TLS
/// listeners, the XMPP listeners and the proxy. `serve` and `exec` share it.
struct RunningEmulator {
    let server: EmulatorServer
    let xmpp: [XMPPServer]
    /// Where real receivers connect (docs/receivers.md); nil when `mcsPort` is off.
    let mcs: MCSServer?
    let proxy: ProxyServer?
    /// The HTTP fronts' keys, which snapshots carry along with the world.
    let credentials: FrontCredentials
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

    static func start(_ options: ServeOptions, file: ConfigFile?, logger: Logger) async throws -> RunningEmulator {
        let emulator = Emulator(settings: options.settings, clock: .wall(start: options.clockStart, wallMillis: FCMEmu.Serve.wallMillis))
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
        let server: EmulatorServer
        do {
            server = try await EmulatorServer.start(
                emulator: emulator, configuration: options.server, fronts: fronts, group: group, logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            throw RuntimeFailure(listening: error)
        }
        let xmpp: [XMPPServer]
        do {
            xmpp = try await FCMEmu.Serve.startXMPP(options, server: server, group: group, logger: logger)
        } catch {
            await server.shutdown()
            try? await group.shutdownGracefully()
            throw RuntimeFailure(listening: error, what: "the XMPP server")
        }
        let mcs: MCSServer?
        do {
            mcs = try await FCMEmu.Serve.startMCS(options, server: server, group: group, logger: logger)
        } catch {
            for listener in xmpp { await listener.close() }
            await server.shutdown()
            try? await group.shutdownGracefully()
            throw RuntimeFailure(listening: error, what: "the MCS server")
        }
        var proxy: ProxyServer?
        if let port = options.proxyPort {
            do {
                proxy = try await FCMEmu.Serve.startProxy(options, port: port, server: server, xmpp: xmpp, mcs: mcs, group: group, logger: logger)
            } catch {
                await mcs?.close()
                for listener in xmpp { await listener.close() }
                await server.shutdown()
                try? await group.shutdownGracefully()
                throw RuntimeFailure(listening: error, what: "the proxy")
            }
        }
        return RunningEmulator(server: server, xmpp: xmpp, mcs: mcs, proxy: proxy, credentials: credentials, group: group)
    }

    /// Closes every listener (CCS streams end with system-shutdown) and the event loops.
    func stop() async {
        await stopListening()
        await stopEventLoops()
    }

    func stopEventLoops() async {
        try? await group.shutdownGracefully()
    }

    /// Closes every listener at once, letting open connections finish what they are answering
    /// (`Listener.close`): each waits out at most one grace period, not one after another; no
    /// request reaches the world after this.
    func stopListening() async {
        await withTaskGroup(of: Void.self) { closing in
            if let proxy { closing.addTask { await proxy.close() } }
            for listener in xmpp { closing.addTask { await listener.close() } }
            if let mcs { closing.addTask { await mcs.close() } }
            closing.addTask { await server.shutdown() }
        }
    }
}
