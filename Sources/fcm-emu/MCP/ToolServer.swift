// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging

/// The MCP server over stdio: JSON-RPC 2.0, one message a line (the MCP specification,
/// 2025-06-18: "Lifecycle" for initialize and notifications/initialized, "Tools" for tools/list
/// and tools/call, "Utilities", "Ping"). Requests are answered one at a time, in order, so every
/// request read before stdin closed is answered before the server ends. Stdout carries the
/// protocol alone; logs go to stderr.
enum ToolServer {
    /// The versions spoken, newest first; a client asking for another is answered with the first
    /// ("Lifecycle", "Version Negotiation").
    static let protocolVersions = ["2025-06-18", "2025-03-26", "2024-11-05"]

    static let tools: [EmulatorTool] = [
        .createProject, .createDevice, .listDevices, .setDeviceState, .sendMessage, .readInbox, .advanceClock, .why, .listEvents,
    ]

    /// Serves until stdin closes.
    static func serve(_ backend: EmulatorBackend, instructions: String, logger: Logger) async {
        for await line in StdinLines.lines() {
            let reply: JSONValue?
            switch line {
            case .tooLong: reply = error(.null, -32700, "Parse error: a message longer than \(StdinLines.maxLine) bytes")
            case .text(let bytes):
                guard bytes.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
                reply = await answer(bytes, backend, instructions: instructions, logger: logger)
            }
            if let reply { StandardStreams.write(reply.encoded() + "\n") }
        }
    }

    /// The answer to one message; nil for a notification or a response.
    static func answer(_ bytes: [UInt8], _ backend: EmulatorBackend, instructions: String, logger: Logger) async -> JSONValue? {
        guard let message = try? JSONParser.parse(bytes) else { return error(.null, -32700, "Parse error: not JSON") }
        guard message.objectValue != nil, message["jsonrpc"]?.stringValue == "2.0" else {
            // Batches were removed from MCP in 2025-06-18.
            return error(.null, -32600, "Invalid Request: one JSON-RPC 2.0 object a line")
        }
        // A response (we send no requests) or a notification (initialized, cancelled): nothing to say.
        guard let method = message["method"]?.stringValue, let id = message["id"], id != .null else { return nil }
        guard id.stringValue != nil || id.int64Value != nil else {
            return error(.null, -32600, "Invalid Request: id must be a string or an integer")
        }
        let params = message["params"]
        switch method {
        case "initialize":
            let asked = params?["protocolVersion"]?.stringValue ?? ""
            return result(
                id,
                .object([
                    ("protocolVersion", .string(protocolVersions.contains(asked) ? asked : protocolVersions[0])),
                    ("capabilities", .object([("tools", .object([("listChanged", .bool(false))]))])),
                    (
                        "serverInfo",
                        .object([
                            ("name", .string("fcm-emu")), ("title", .string("fcm-emu, a local Firebase Cloud Messaging emulator")),
                            ("version", .string(FCMEmuVersion.current)),
                        ])
                    ),
                    ("instructions", .string(instructions)),
                ]))
        case "ping": return result(id, .object([]))
        case "tools/list": return result(id, .object([("tools", .array(tools.map(\.listed)))]))
        case "tools/call":
            guard let name = params?["name"]?.stringValue else { return error(id, -32602, "Invalid params: tools/call needs a name") }
            guard let tool = tools.first(where: { $0.name == name }) else {
                return error(id, -32602, "Unknown tool: \(name.prefix(100)); tools/list names them")
            }
            let arguments: ToolArguments
            do {
                arguments = try ToolArguments(json: params?["arguments"])
            } catch let failure {
                return error(id, -32602, "Invalid params: \(failure.message)")
            }
            return result(id, await call(tool, arguments, backend, logger: logger))
        default: return error(id, -32601, "Method not found: \(method.prefix(100))")
        }
    }

    /// One tool call's result; a failed call is a result with isError ("Tools", "Error Handling").
    static func call(_ tool: EmulatorTool, _ arguments: ToolArguments, _ backend: EmulatorBackend, logger: Logger) async -> JSONValue {
        let text: String
        let structured: JSONValue?
        let failed: Bool
        do {
            let output = try await tool.run(arguments, backend)
            (text, structured, failed) = (output.text, output.structured, false)
        } catch let failure as ToolFailure {
            logger.info("MCP tool failed", metadata: ["tool": "\(tool.name)", "error": "\(failure.message)"])
            (text, structured, failed) = (
                failure.message, .object([("error", .string(failure.message)), ("body", failure.body ?? .null)]), true
            )
        } catch {
            (text, structured, failed) = ("\(tool.name) failed: \(error)", nil, true)
        }
        return .object(omittingNils: [
            ("content", .array([.object([("type", .string("text")), ("text", .string(text))])])), ("structuredContent", structured),
            ("isError", .bool(failed)),
        ])
    }

    static func result(_ id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
    }

    static func error(_ id: JSONValue, _ code: Int, _ message: String) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("error", .object([("code", .int(code)), ("message", .string(message))]))])
    }
}
