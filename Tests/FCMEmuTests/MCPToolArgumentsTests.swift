// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Testing

@testable import fcm_emu

/// `fcm-emu mcp`'s argument checks (docs/mcp.md, "Limits"): what an agent sends is refused with
/// a message it can act on before anything reaches the emulator.
@Suite("mcp: tool arguments")
struct MCPToolArgumentsTests {
    @Test func requiredAndChoicesAreChecked() throws {
        let arguments = ToolArguments(["project": .string("demo"), "state": .string("asleep"), "empty": .string("")])
        #expect(try arguments.required("project") == "demo")
        #expect(throws: ToolFailure("device is required")) { try arguments.required("device") }
        #expect(throws: ToolFailure("empty must not be empty")) { try arguments.string("empty") }
        #expect(throws: ToolFailure("state must be one of foreground, background, doze, offline, uninstalled, not 'asleep'")) {
            try arguments.choice("state", ToolArguments.states)
        }
        let long = String(repeating: "x", count: ToolArguments.maxString + 1)
        #expect(throws: ToolFailure("name is longer than 4096 bytes")) { try ToolArguments(["name": .string(long)]).string("name") }
    }

    @Test func limitsAreBounded() throws {
        #expect(try ToolArguments(nil).integer("limit", in: 1...200, default: 50) == 50)
        #expect(try ToolArguments(["limit": .int(200)]).integer("limit", in: 1...200, default: 50) == 200)
        for bad in [0, 201, 5000] {
            #expect(throws: ToolFailure("limit must be an integer from 1 to 200")) {
                try ToolArguments(["limit": .int(bad)]).integer("limit", in: 1...200, default: 50)
            }
        }
        #expect(throws: ToolFailure("limit must be an integer from 1 to 200")) {
            try ToolArguments(["limit": .string("ten")]).integer("limit", in: 1...200, default: 1)
        }
    }

    @Test func durationsAreTheControlAPIs() throws {
        for good in ["10m", "1h30m", "500ms", "2d", "90"] { #expect(try ToolArguments(["by": .string(good)]).duration("by") == good) }
        for bad in ["soon", "0s", "-5m", "10 parsecs"] {
            #expect(throws: ToolFailure.self) { try ToolArguments(["by": .string(bad)]).duration("by") }
        }
    }

    @Test func unknownArgumentsAreNamed() {
        #expect(throws: ToolFailure("unknown argument stat; this tool takes project, device, state")) {
            try ToolArguments(["project": .string("p"), "stat": .string("offline")]).refuseUnknown(["project", "device", "state"])
        }
    }

    @Test func whyFormatsTheStoryThenOneLinePerOutcome() throws {
        let answer = try JSONParser.parse(
            Array(
                #"""
                {"device":{"id":"1001"},"stored":1,"story":"1001 is offline; 1 message waits.",
                 "outcomes":[{"time":"2026-11-24T10:00:00Z","kind":"stored","messageId":"m1","reason":"offline","summary":"waits for the device"},
                             {"time":"2026-11-24T09:00:00Z","kind":"delivered","messageId":"m0"}]}
                """#.utf8))
        // The same text as `fcm-emu why` prints.
        #expect(
            EmulatorTool.whyText(answer) == """
                device 1001: ?, 1 stored
                story: 1001 is offline; 1 message waits.
                outcomes, newest first:
                  2026-11-24T10:00:00Z  stored     m1  waits for the device
                  2026-11-24T09:00:00Z  delivered  m0\u{20}\u{20}
                """)
    }

    @Test func pathSegmentsAreEncoded() {
        #expect(EmulatorBackend.segment("abc:APA91b/x y") == "abc%3AAPA91b%2Fx%20y")
        #expect(
            EmulatorBackend.query([("kind", "accepted,delivered"), ("device", nil), ("limit", "5")]) == "?kind=accepted%2Cdelivered&limit=5"
        )
    }
}
