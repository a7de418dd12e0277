// SPDX-License-Identifier: Apache-2.0

import CYAML

/// Reads one YAML document into `YAMLNode`s with libyaml's parser (its event API), the C parser
/// that Yams wraps, without Yams' full Foundation (docs/development.md, "The binary").
///
/// What a file can make us hold is bounded: nesting deeper than `maxDepth` and documents that
/// stand for more than `maxNodes` nodes (aliases expanded, as a reader walks them: the "billion
/// laughs" of ten aliases of ten aliases) are errors, like a file that is not YAML.
public enum YAMLDocument {
    public static let maxDepth = 256
    public static let maxNodes = 1_000_000

    /// The document's root; nil for a file with no document (empty, or only comments).
    public static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { bytes = [UInt8(ascii: "\n")] }  // libyaml wants a buffer to point at
        var result: Result<YAMLNode?, YAMLError> = .success(nil)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                result = .failure(YAMLError(line: 1, "the YAML parser could not start (out of memory)"))
                return
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, base, buffer.count)
            var composer = Composer()
            result = Result { () throws(YAMLError) in try composer.run(&parser) }
        }
        return try result.get()
    }
}

/// Why a file is not a YAML document we read, and the 1-based line.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// Builds nodes from libyaml's events: collections open on a stack and close into their parent.
private struct Composer {
    /// A collection still open; changed in place on the stack, so adding an item copies nothing.
    private struct Open {
        let isMapping: Bool
        let line: Int
        let anchor: String?
        var items: [YAMLNode] = []
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        var pendingKey: YAMLNode?
    }

    private var stack: [Open] = []
    private var anchors: [String: YAMLNode] = [:]
    private var root: YAMLNode?
    private var documents = 0
    private var nodes = 0

    mutating func run(_ parser: inout yaml_parser_t) throws(YAMLError) -> YAMLNode? {
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(&parser, &event) == 1 else { throw Self.parserError(parser) }
            defer { yaml_event_delete(&event) }
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else { throw YAMLError(line: line, "a file holds one YAML document; a second starts here") }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = Self.text(scalar.value, Int(scalar.length))
                let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && scalar.tag == nil
                try add(YAMLNode(.scalar(text, plain: plain), line: line), anchor: Self.name(scalar.anchor), line: line)
            case YAML_ALIAS_EVENT:
                let name = Self.name(event.data.alias.anchor) ?? ""
                guard let node = anchors[name] else { throw YAMLError(line: line, "*\(name) names no anchor before it") }
                try add(node, anchor: nil, line: line)
            case YAML_SEQUENCE_START_EVENT:
                try open(Open(isMapping: false, line: line, anchor: Self.name(event.data.sequence_start.anchor)))
            case YAML_MAPPING_START_EVENT:
                try open(Open(isMapping: true, line: line, anchor: Self.name(event.data.mapping_start.anchor)))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let top = stack.popLast() else { throw YAMLError(line: line, "a collection ends that never began") }
                let node = YAMLNode(top.isMapping ? .mapping(top.pairs) : .sequence(top.items), line: top.line)
                try add(node, anchor: top.anchor, line: line)
            default:
                break  // stream and document bounds carry nothing a node needs
            }
        }
    }

    private mutating func open(_ collection: Open) throws(YAMLError) {
        guard stack.count < YAMLDocument.maxDepth else {
            throw YAMLError(line: collection.line, "nested deeper than \(YAMLDocument.maxDepth) levels")
        }
        stack.append(collection)
    }

    /// Puts a finished node where it belongs: the root, a sequence's next item, or a mapping's key
    /// or value.
    private mutating func add(_ node: YAMLNode, anchor: String?, line: Int) throws(YAMLError) {
        nodes = nodes &+ node.weight
        guard nodes <= YAMLDocument.maxNodes, node.weight <= YAMLDocument.maxNodes else {
            throw YAMLError(line: line, "the document stands for more than \(YAMLDocument.maxNodes) nodes (aliases count each time)")
        }
        if let anchor { anchors[anchor] = node }
        let top = stack.count - 1
        guard top >= 0 else {
            root = node
            return
        }
        if !stack[top].isMapping {
            stack[top].items.append(node)
        } else if let key = stack[top].pendingKey {
            stack[top].pairs.append((key, node))
            stack[top].pendingKey = nil
        } else {
            stack[top].pendingKey = node
        }
    }

    private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?, _ length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func name(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private static func parserError(_ parser: yaml_parser_t) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "not YAML"
        let context = parser.context.map { String(cString: $0) + ": " } ?? ""
        return YAMLError(line: Int(parser.problem_mark.line) + 1, context + problem)
    }
}
