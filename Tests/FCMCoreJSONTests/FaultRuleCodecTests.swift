// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON
import Testing

@Suite("Fault rules as JSON")
struct FaultRuleCodecTests {
    @Test func aRuleReadsAndWritesBackTheSame() throws {
        let text = #"{"id":"outage","match":{"api":"v1","route":"messages:send","every":2,"count":3},"action":{"status":503,"retryAfter":"10s"}}"#
        let rule = try FaultRuleCodec.decode(try JSONParser.parse(text), defaultId: "rule-1")
        #expect(rule.id == "outage")
        #expect(rule.match.api == .v1)
        #expect(rule.match.every == 2)
        #expect(rule.match.count == 3)
        #expect(rule.summary.hasPrefix("status 503"))
        let again = try FaultRuleCodec.decode(FaultRuleCodec.encode(rule), defaultId: "other")
        #expect(FaultRuleCodec.encode(again) == FaultRuleCodec.encode(rule))
    }

    @Test func aRuleWithoutAnIdTakesTheDefault() throws {
        let rule = try FaultRuleCodec.decode(try JSONParser.parse(#"{"action":{"error":"UNREGISTERED"}}"#), defaultId: "rule-7")
        #expect(rule.id == "rule-7")
    }

    @Test func unknownKeysAndAPIsAreRefusedNamingTheField() throws {
        let unknown = #expect(throws: FCMError.self) {
            try FaultRuleCodec.decode(try JSONParser.parse(#"{"action":{"status":503},"when":1}"#), defaultId: "r")
        }
        #expect(unknown?.code == .invalidArgument)
        let api = #expect(throws: FCMError.self) {
            try FaultRuleCodec.decode(try JSONParser.parse(#"{"match":{"api":"smtp"},"action":{"status":503}}"#), defaultId: "r")
        }
        #expect(api?.field == "match.api")
    }

    @Test func textFieldsAreBounded() throws {
        let long = String(repeating: "x", count: FaultRuleCodec.maxTextBytes + 1)
        #expect(throws: FCMError.self) {
            try FaultRuleCodec.decode(.object([("id", .string(long)), ("action", .object([("status", .int(503))]))]), defaultId: "r")
        }
    }
}
