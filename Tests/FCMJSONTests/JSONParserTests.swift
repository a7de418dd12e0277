// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Testing

@Suite("JSON parser and encoder")
struct JSONParserTests {
    @Test func parsesAndKeepsKeyOrderAndNumberText() throws {
        let value = try JSONParser.parse(#" {"b": [1, 2.50, -3e2], "a": {"x": null, "y": true}, "s": "é\n\u00e9\ud83d\ude00"} "#)
        #expect(value.objectValue?.map(\.0) == ["b", "a", "s"])
        #expect(value["b"]?.arrayValue?[1] == .number("2.50"))
        #expect(value["b"]?.arrayValue?[2].int64Value == -300)
        #expect(value["s"]?.stringValue == "é\né😀")
        #expect(value["a"]?["y"] == .bool(true))
    }

    /// A double such as 1e400 was written as the bare token `inf`, which no parser reads.
    @Test func nonFiniteDoublesAreWrittenAsValidJSON() throws {
        for value in [Double.infinity, -.infinity, .nan, Double("1e400") ?? 0] {
            let text = JSONValue.object([("speed", .double(value))]).encoded()
            #expect(text == #"{"speed":null}"#)
            #expect(throws: Never.self) { try JSONParser.parse(Array(text.utf8)) }
        }
    }

    @Test func encodesCompactAndPrettyAndEscapes() throws {
        let value = JSONValue.object([
            ("name", .string("a\"b\\c\u{01}")), ("list", .array([.int(1), .bool(false)])), ("empty", .object([])),
        ])
        #expect(value.encoded() == #"{"name":"a\"b\\c\u0001","list":[1,false],"empty":{}}"#)
        #expect(
            value.encoded(.pretty) == "{\n  \"name\": \"a\\\"b\\\\c\\u0001\",\n  \"list\": [\n    1,\n    false\n  ],\n  \"empty\": {}\n}")
        #expect(try JSONParser.parse(value.encoded()) == value)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", "-", "1e", "+1", "nul", "tru", "\"abc", "\"\\x\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "{\"a\":1,\"a\":2}", "[1] 2", "'a'", "NaN",
    ])
    func refusesMalformedDocuments(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        // After ASCII, and in a key: the ASCII fast path must not wave either through.
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0x61, 0x62, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x7B, 0x22, 0x61, 0xC3, 0x22, 0x3A, 0x31, 0x7D]) }
    }

    @Test func readsASCIIAndOtherTextAlike() throws {
        let parsed = try JSONParser.parse(#"["plain", "héllo ✓", "", "a\u00e9"]"#)
        #expect(parsed == .array([.string("plain"), .string("héllo ✓"), .string(""), .string("aé")]))
        #expect(try JSONParser.parse(#"{"clé": "v", "key": "värde"}"#)["clé"] == .string("v"))
    }

    @Test func capsNestingInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect((try? JSONParser.parse(ok)) != nil)
    }

    @Test func reportsWhereItStopped() {
        do {
            _ = try JSONParser.parse(#"{"a": tru}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 6)
        }
    }
}

@Suite("JSON parser: duplicate keys in large objects")
struct JSONDuplicateKeyTests {
    @Test func duplicatesAreFoundPastTheLinearScan() {
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }
        #expect((try? JSONParser.parse("{" + keys.joined(separator: ",") + "}")) != nil)
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{" + (keys + ["\"k3\":0"]).joined(separator: ",") + "}") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{" + (keys + ["\"k39\":0"]).joined(separator: ",") + "}") }
    }
}

@Suite("JSON parser: strings read eight bytes a step")
struct JSONStringScanTests {
    /// Every length around the eight-byte steps, with what ends or leaves the fast path at every
    /// place: the steps must stop for each of them wherever it falls.
    @Test func everyStopIsSeenWhereverItFalls() throws {
        for length in 0...34 {
            let plain = String(repeating: "a", count: length)
            #expect(try JSONParser.parse("\"\(plain)\"") == .string(plain))
            for at in 0..<length {
                func with(_ inserted: String) -> String {
                    String(plain.prefix(at)) + inserted + String(plain.dropFirst(at + 1))
                }
                #expect(try JSONParser.parse("\"\(with("é"))\"") == .string(with("é")))
                #expect(try JSONParser.parse("\"\(with("\\\""))\"") == .string(with("\"")))
                #expect(try JSONParser.parse("\"\(with("\\\\"))\"") == .string(with("\\")))
                #expect(try JSONParser.parse("\"\(with("\u{7F}"))\"") == .string(with("\u{7F}")))
                #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\(with("\u{01}"))\"") }
                #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\(with("\n"))\"") }
                // A quote inside the steps ends the string there, and what follows is refused.
                #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\(with("\""))\"") }
                #expect(throws: JSONParseError.self) { try JSONParser.parse(Array("\"\(plain)".utf8) + [0xFF] + Array("\"".utf8)) }
            }
            #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\(plain)") }
        }
    }

    /// The encoder steps the same way to decide whether a string needs escaping.
    @Test func everyByteToEscapeIsEscapedWhereverItFalls() throws {
        for length in 1...34 {
            let plain = String(repeating: "a", count: length)
            for at in 0..<length {
                for inserted in ["\"", "\\", "\n", "\u{01}", "é"] {
                    let text = String(plain.prefix(at)) + inserted + String(plain.dropFirst(at + 1))
                    let encoded = JSONValue.string(text).encoded()
                    #expect(try JSONParser.parse(encoded) == .string(text), "\(encoded)")
                    #expect(encoded.utf8.count == text.utf8.count + 2 + (inserted == "é" ? 0 : inserted == "\u{01}" ? 5 : 1))
                }
            }
        }
    }
}
