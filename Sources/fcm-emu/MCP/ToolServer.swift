// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Logging
import MCP

/// The MCP server over stdio (the SDK's `Server` and `StdioTransport`): the tools listed and
/// called, each through `EmulatorBackend`. Stdout carries the protocol alone; logs go to stderr.
enum ToolServer {
    static let tools: [EmulatorTool] = [
        .createProject, .createDevice, .listDevices, .setDeviceState, .sendMessage, .readInbox, .advanceClock, .why, .listEvents,
    ]

    /// Serves until the client closes stdin.
    static func serve(_ backend: EmulatorBackend, instructions: String, logger: Logger) async throws {
        let server = Server(
            name: "fcm-emu", version: FCMEmuVersion.current, title: "fcm-emu, a local Firebase Cloud Messaging emulator",
            instructions: instructions, capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: tools.map(\.tool)) }
        await server.withMethodHandler(CallTool.self) { params in try await call(params, backend, logger: logger) }
        try await server.start(transport: DrainingTransport(logger: logger))
        await server.waitUntilCompleted()
        await server.stop()
    }

    /// One tool call. An unknown tool is a protocol error (JSON-RPC -32602, as the MCP
    /// specification's "Tools" section has it); a failed call is a result with isError.
    static func call(_ params: CallTool.Parameters, _ backend: EmulatorBackend, logger: Logger) async throws -> CallTool.Result {
        guard let tool = tools.first(where: { $0.tool.name == params.name }) else {
            throw MCPError.invalidParams("Unknown tool: \(params.name.prefix(100)); tools/list names them")
        }
        do {
            let output = try await tool.run(ToolArguments(params.arguments), backend)
            return .init(
                content: [.text(text: output.text, annotations: nil, _meta: nil)], structuredContent: output.structured, isError: false)
        } catch let failure as ToolFailure {
            logger.info("MCP tool failed", metadata: ["tool": "\(params.name)", "error": "\(failure.message)"])
            let structured: Value? = .object(["error": .string(failure.message), "body": failure.body ?? .null])
            return .init(
                content: [.text(text: failure.message, annotations: nil, _meta: nil)], structuredContent: structured, isError: true)
        } catch {
            return .init(content: [.text(text: "\(params.name) failed: \(error)", annotations: nil, _meta: nil)], isError: true)
        }
    }
}
