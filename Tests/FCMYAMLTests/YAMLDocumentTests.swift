// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import FCMYAML
import Testing

@Suite("YAML documents read with libyaml")
struct YAMLDocumentTests {
    @Test func readsMappingsInOrderWithLinesAndScalarStyles() throws {
        let text = """
            # a comment
            name: probe
            count: 12
            quoted: "12"
            list:
              - one
              - {b: 2, a: true}
            empty:
            """
        let root = try #require(try YAMLDocument.compose(text))
        let pairs = try #require(root.mapping)
        #expect(pairs.map { $0.key.string } == ["name", "count", "quoted", "list", "empty"])
        #expect(root.line == 2)
        #expect(pairs[1].value.line == 3)
        #expect(pairs[1].value.isPlainScalar)
        #expect(!pairs[2].value.isPlainScalar)
        let list = try #require(pairs[3].value.sequence)
        #expect(list.count == 2)
        #expect(list[1].line == 7)
        #expect(list[1].mapping?.map { $0.key.string } == ["b", "a"])
        #expect(pairs[4].value.string == "")
    }

    @Test func plainScalarsBecomeJSONTypesAndQuotedOnesStayStrings() throws {
        let root = try #require(try YAMLDocument.compose("a: 12\nb: '12'\nc: 1.5\nd: 1e3\ne: true\nf: ~\ng: null\nh: !!str 7\ni: -4\n"))
        #expect(root.json == .object([
            ("a", .int(12)), ("b", .string("12")), ("c", .double(1.5)), ("d", .string("1e3")), ("e", .bool(true)),
            ("f", .null), ("g", .null), ("h", .string("7")), ("i", .int(-4)),
        ]))
    }

    @Test func anAliasIsTheNodeItsAnchorNamed() throws {
        let root = try #require(try YAMLDocument.compose("base: &b {x: 1}\ncopy: *b\n"))
        #expect(root.json == .object([("base", .object([("x", .int(1))])), ("copy", .object([("x", .int(1))]))]))
    }

    @Test func anEmptyFileHasNoDocument() throws {
        #expect(try YAMLDocument.compose("") == nil)
        #expect(try YAMLDocument.compose("# only a comment\n") == nil)
    }

    @Test func errorsNameTheLine() {
        #expect(throws: YAMLError(line: 2, "*y names no anchor before it")) { try YAMLDocument.compose("a: 1\nb: *y\n") }
        let error = #expect(throws: YAMLError.self) { try YAMLDocument.compose("a: [1, 2\nb: 3\n") }
        #expect(error?.line == 2)
        #expect(error?.message.contains("flow sequence") == true)
        #expect(throws: YAMLError.self) { try YAMLDocument.compose("a: 1\n---\nb: 2\n") }
        #expect(throws: YAMLError.self) { try YAMLDocument.compose("\u{FF}\u{FE}: [") }
    }

    /// Ten aliases of ten aliases of … stand for billions of nodes to a reader that walks them.
    @Test func aliasesThatExpandPastTheBoundAreRefused() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...7 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) [" + Array(repeating: previous, count: 10).joined(separator: ", ") + "]\n"
        }
        let error = #expect(throws: YAMLError.self) { try YAMLDocument.compose(text) }
        #expect(error?.message.contains("more than \(YAMLDocument.maxNodes) nodes") == true)
    }

    @Test func nestingPastTheBoundIsRefused() throws {
        let deep = String(repeating: "[", count: YAMLDocument.maxDepth + 1) + String(repeating: "]", count: YAMLDocument.maxDepth + 1)
        let error = #expect(throws: YAMLError.self) { try YAMLDocument.compose(deep) }
        #expect(error?.message.contains("deeper than") == true)
        let fine = String(repeating: "[", count: YAMLDocument.maxDepth) + String(repeating: "]", count: YAMLDocument.maxDepth)
        #expect(try YAMLDocument.compose(fine) != nil)
    }

    @Test func aLongSequenceIsReadInOnePass() throws {
        let text = (0..<50_000).map { "- \($0)" }.joined(separator: "\n")
        let root = try #require(try YAMLDocument.compose(text))
        #expect(root.sequence?.count == 50_000)
        #expect(root.sequence?.last?.line == 50_000)
    }
}
