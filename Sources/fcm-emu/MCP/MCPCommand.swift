// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import ServiceLifecycle

extension FCMEmu {
    struct MCPCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "A Model Context Protocol server over stdio, so an agent can drive the emulator.",
            discussion: """
                Speaks MCP (the 2025-06-18 specification: JSON-RPC, one message a line on stdin and stdout; logs on stderr). By default it starts \
                an emulator of its own on free loopback ports and stops it when stdin closes; --attach drives a running \
                `serve` instead, named by the ready file it wrote (--ready-file) or its http:// address.

                Tools: create_project, create_device, list_devices, set_device_state, send_message (through the v1 \
                endpoint with the project's service-account credentials), read_inbox, advance_clock, why, list_events. \
                Each calls the control API; a failed call is a result with isError and the emulator's error text. \
                Lists are bounded (100 devices, 100 deliveries, 200 events) and say how many they show of how many.

                Examples:
                  claude mcp add fcm-emu -- fcm-emu mcp
                  fcm-emu serve --ready-file /tmp/fcm.json &
                  claude mcp add fcm-emu -- fcm-emu mcp --attach /tmp/fcm.json

                docs/mcp.md has the Claude Desktop configuration and every tool's arguments.
                """
        )

        @Option(
            help: ArgumentHelp(
                "Drive this running serve, not an emulator of its own: its ready file or http:// address.", valueName: "ready-file|url"))
        var attach: String?

        @Option(
            name: .customLong("set"),
            help: ArgumentHelp("Any `serve` setting for the emulator mcp starts, as key=value (repeatable).", valueName: "key=value"))
        var assignments: [String] = []

        @Option(help: "trace … critical, on stderr (default warning).")
        var logLevel = "warning"

        func validate() throws {
            if attach != nil, !assignments.isEmpty {
                throw ValidationError("--set is for the emulator mcp starts; --attach uses the running one as it is")
            }
        }

        func run() async throws {
            if let attach {
                LoggingSystem.bootstrap { label in
                    var handler = StreamLogHandler.standardError(label: label)
                    handler.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
                    return handler
                }
                let attached = try await AttachedEmulator.connect(attach)
                await ToolServer.serve(
                    EmulatorBackend(client: attached.client), instructions: Self.instructions(attached.info),
                    logger: Logger(label: "fcm-emu.mcp"))
                return
            }
            var serve = try Serve.parse(["--port", "0", "--log-level", logLevel] + assignments.flatMap { ["--set", $0] })
            serve.readyFile = nil
            var (options, file) = try serve.resolve(environment: [:])
            options.useFreePorts()
            RunningEmulator.bootstrapLogging(options)
            let logger = Logger(label: "fcm-emu.mcp")
            let running = try RunningEmulator.prepare(options, file: file, logger: logger)
            // The tool server is the group's last service: when the agent goes, the emulator stops.
            let tools = CommandService {
                guard let server = try? await cancelWhenGracefulShutdown({ try await running.listening() }).server,
                    let client = try? ControlClient(base: server.info["http"]?["url"]?.stringValue ?? "")
                else { return 1 }
                let info = server.info
                logger.notice("Emulator listening", metadata: ["url": "\(info["http"]?["url"]?.stringValue ?? "?")"])
                // SIGTERM or SIGINT ends the tool server as the agent closing stdin does.
                await cancelWhenGracefulShutdown {
                    await ToolServer.serve(EmulatorBackend(client: client), instructions: Self.instructions(info), logger: logger)
                }
                return 0
            }
            try await EmulatorServices.run(try await EmulatorServices.emulator(running, options, logger: logger) + [tools], logger: logger)
        }

        /// What the agent is told at initialize: where the emulator is, so it can point an app at it.
        static func instructions(_ info: JSONValue) -> String {
            let url = info["http"]?["url"]?.stringValue ?? "?"
            return "fcm-emu is a local Firebase Cloud Messaging emulator at \(url) (dashboard \(url)/ui/, control API \(url)/emulator/v1). "
                + "Create a project and devices, send with send_message, read what arrived with read_inbox; messages to offline or dozing "
                + "devices wait: advance_clock moves time, and why tells what happened to each message."
        }
    }
}
