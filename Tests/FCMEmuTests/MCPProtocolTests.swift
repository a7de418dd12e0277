// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Logging
import Testing

@testable import fcm_emu

/// `fcm-emu mcp`'s JSON-RPC layer (docs/mcp.md, "Errors"): what the MCP specification, 2025-06-18,
/// asks of a server before any tool reaches the emulator. No emulator: none of these calls one.
@Suite("mcp: the protocol")
struct MCPProtocolTests {
    let backend: EmulatorBackend
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    init() throws { backend = EmulatorBackend(client: try ControlClient(base: "http://127.0.0.1:9")) }

    func answer(_ line: String) async throws -> JSONValue? {
        await ToolServer.answer(Array(line.utf8), backend, instructions: "hi", logger: logger)
    }

    @Test func initializeNegotiatesTheVersion() async throws {
        let known = try await answer(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#)
        #expect(known?["result"]?["protocolVersion"] == .string("2025-03-26"))
        #expect(known?["result"]?["serverInfo"]?["name"] == .string("fcm-emu"))
        #expect(known?["result"]?["capabilities"]?["tools"] != nil)
        let newer = try await answer(#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#)
        #expect(newer?["id"] == .string("a"))
        #expect(newer?["result"]?["protocolVersion"] == .string("2025-06-18"))
    }

    @Test func toolsAreListedWithObjectSchemas() async throws {
        let listed = try await answer(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        let tools = listed?["result"]?["tools"]?.arrayValue ?? []
        #expect(tools.count == 9)
        for tool in tools { #expect(tool["inputSchema"]?["type"] == .string("object")) }
    }

    @Test func protocolErrorsAreJSONRPCErrors() async throws {
        let cases: [(String, Int64)] = [
            ("not json", -32700), ("[1]", -32600), (#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, -32600),
            (#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#, -32601),
            (#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"why","arguments":[1]}}"#, -32602),
        ]
        for (line, code) in cases {
            let reply = try await answer(line)
            #expect(reply?["error"]?["code"]?.int64Value == code, "\(line)")
        }
    }

    @Test func notificationsAreNotAnswered() async throws {
        #expect(try await answer(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
        #expect(try await answer(#"{"jsonrpc":"2.0","id":6,"result":{}}"#) == nil)
    }

    @Test func aBadArgumentIsAFailedCallNotAProtocolError() async throws {
        let reply = try await answer(
            #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"advance_clock","arguments":{"duration":"soon"}}}"#)
        #expect(reply?["result"]?["isError"] == .bool(true))
        let text = reply?["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(text.hasPrefix("duration must be a positive duration"))
    }
}
