// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMJSON
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

extension FCMEmu {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the emulator until Ctrl-C (SIGINT) or SIGTERM.",
            discussion: """
                Works with no configuration: it listens on 127.0.0.1:9092 and creates the demo project \
                '\(DemoProject.id)' (sender id \(DemoProject.number), server key printed at start-up).

                Settings come from, lowest first: defaults, the --config file, FCM_EMU_* environment variables, then \
                flags (--set key=value for any setting below).

                Settings:
                \(Settings.helpText)

                Examples:
                  fcm-emu serve
                  fcm-emu serve --port 0 --ready-file /tmp/fcm.json     # parallel test harnesses
                  fcm-emu serve --set dozeMaintenanceInterval=5m --set clockSpeed=60
                  FCM_EMU_PORT=9300 fcm-emu serve --devices devices.yaml
                  fcm-emu serve --faults faults.yaml                     # e.g. a 503 with Retry-After on every 3rd send
                  fcm-emu serve --import snap --export-on-exit snap --set autosave=5m   # state that survives restarts
                """
        )

        @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 exposes it to the network).")
        var host: String?

        @Option(help: "HTTP port for every API and the control API (default 9092; 0 picks a free one).")
        var port: Int?

        @Option(help: "Seed for tokens, ids and random choices (default 1).")
        var seed: UInt64?

        @Option(help: "A YAML or JSON file of settings, projects and devices.", completion: .file())
        var config: String?

        @Option(
            name: .customLong("devices"), help: "A YAML file of projects and devices to create at start-up (repeatable).",
            completion: .file())
        var deviceFiles: [String] = []

        @Option(help: "Write the bound addresses and demo credentials here as JSON once listening.", completion: .file())
        var readyFile: String?

        @Option(help: "trace, debug, info, notice, warning, error or critical (default info: one line per request).")
        var logLevel: String?

        @Option(help: "text (default) or json (one object per line, for log collectors).")
        var logFormat: String?

        @Option(
            name: .customLong("faults"), help: "A YAML or JSON file of fault rules to apply from the start (repeatable).",
            completion: .file())
        var faultFiles: [String] = []

        @Option(name: .customLong("import"), help: "Start from this snapshot directory.", completion: .directory)
        var importDirectory: String?

        @Option(help: "Write the world to this snapshot directory on exit (Ctrl-C and SIGTERM too).", completion: .directory)
        var exportOnExit: String?

        @Option(
            name: .customLong("set"), help: ArgumentHelp("Any setting listed below, as key=value (repeatable).", valueName: "key=value"))
        var assignments: [String] = []

        func run() async throws {
            let (options, file) = try resolve(environment: ProcessInfo.processInfo.environment)
            RunningEmulator.bootstrapLogging(options)
            let logger = Logger(label: "fcm-emu")
            let running = try RunningEmulator.prepare(options, file: file, logger: logger)
            let announcement = Announcement(readyFile: options.readyFile) {
                let bound = try await running.listening()
                guard let server = bound.server else { throw CancellationError() }
                let xmppPorts = bound.xmpp.sorted { $0.key < $1.key }.map(\.value.port)
                return (server.info, Banner.text(server: server, xmppPorts: xmppPorts, mcsPort: bound.mcs?.port))
            }
            let services: [any Service] = [announcement] + (try await EmulatorServices.emulator(running, options, logger: logger))
            do {
                try await EmulatorServices.run(services, logger: logger)
            } catch is EmulatorService.ExportFailed {
                // A world the user asked to keep and did not get is a failure a script must see.
                logger.info("Stopped")
                throw ExitCode(1)
            }
            logger.info("Stopped")
        }

        /// Applies the sources in order of precedence.
        func resolve(environment: [String: String]) throws -> (ServeOptions, ConfigFile?) {
            var options = ServeOptions()
            var sources: [(key: String, value: String, origin: String)] = []
            var file: ConfigFile?
            if let path = config ?? environment["FCM_EMU_CONFIG"] {
                file = try ConfigFile.load(path: path)
                sources += file?.settings ?? []
            }
            for setting in Settings.all {
                if let value = environment[setting.environmentName] { sources.append((setting.key, value, setting.environmentName)) }
            }
            for assignment in assignments {
                let parts = assignment.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw ConfigError("--set takes key=value, got '\(assignment)'") }
                sources.append((String(parts[0]), String(parts[1]), "--set"))
            }
            let explicit: [(String, String?)] = [
                ("host", host), ("port", port.map(String.init)), ("seed", seed.map(String.init)),
                ("readyFile", readyFile), ("logLevel", logLevel), ("logFormat", logFormat), ("import", importDirectory),
                ("exportOnExit", exportOnExit),
            ]
            for (key, value) in explicit { if let value { sources.append((key, value, "--" + key)) } }
            for path in deviceFiles { sources.append(("devices", path, "--devices")) }
            for path in faultFiles { sources.append(("faults", path, "--faults")) }
            for (key, value, origin) in sources {
                guard let setting = Settings.named(key) else {
                    throw ConfigError("\(origin): unknown setting '\(key)'\(Settings.hint(for: key)) (`fcm-emu serve --help` lists them)")
                }
                do {
                    try setting.apply(&options, value)
                } catch {
                    throw ConfigError("\(origin): \(key): \(error.description)")
                }
            }
            if options.server.httpPort == 0 { Self.freePortsForEveryListener(&options, explicit: Set(sources.map(\.key))) }
            return (options, file)
        }

        /// `--port 0` asks for free ports, and a second emulator on this machine must start: so
        /// every listener the user did not give a port takes a free one too (TLS, XMPP, the proxy
        /// when on). The banner and the ready file name the ports bound.
        static func freePortsForEveryListener(_ options: inout ServeOptions, explicit: Set<String>) {
            if !explicit.contains("tlsPort"), options.server.tlsPort != nil { options.server.tlsPort = 0 }
            if !explicit.contains("xmppPort"), options.xmppPort != nil { options.xmppPort = 0 }
            if !explicit.contains("xmppTestPort"), options.xmppTestPort != nil { options.xmppTestPort = 0 }
            if !explicit.contains("mcsPort"), options.mcsPort != nil { options.mcsPort = 0 }
            if !explicit.contains("proxyPort"), options.proxyPort != nil { options.proxyPort = 0 }
        }

        @Sendable static func wallMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
    }
}
