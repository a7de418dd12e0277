// SPDX-License-Identifier: Apache-2.0

/// A topic condition such as `'a' in topics && ('b' in topics || !('c' in topics))`.
///
/// Grammar (FCM-WIRE.md §1.3): terms are `'name' in topics` with single quotes; `!` negates a
/// term or a parenthesised group; `&&` and `||` combine. "FCM first evaluates any conditions in
/// parentheses, and then evaluates the expression from left to right", so `&&` and `||` have the
/// same precedence here and associate to the left: `A || B && C` is `(A || B) && C`.
public indirect enum TopicCondition: Sendable, Equatable {
    case topic(String)
    case not(TopicCondition)
    case and(TopicCondition, TopicCondition)
    case or(TopicCondition, TopicCondition)

    /// Whether an instance subscribed to `topics` matches.
    public func matches(_ isSubscribed: (String) -> Bool) -> Bool {
        switch self {
        case .topic(let name): return isSubscribed(name)
        case .not(let inner): return !inner.matches(isSubscribed)
        case .and(let a, let b): return a.matches(isSubscribed) && b.matches(isSubscribed)
        case .or(let a, let b): return a.matches(isSubscribed) || b.matches(isSubscribed)
        }
    }

    /// Every topic named, with repeats.
    public var topics: [String] {
        switch self {
        case .topic(let name): return [name]
        case .not(let inner): return inner.topics
        case .and(let a, let b), .or(let a, let b): return a.topics + b.topics
        }
    }

    /// How many `&&` and `||` operators it uses (the legacy limit is two).
    public var binaryOperatorCount: Int {
        switch self {
        case .topic: return 0
        case .not(let inner): return inner.binaryOperatorCount
        case .and(let a, let b), .or(let a, let b): return 1 + a.binaryOperatorCount + b.binaryOperatorCount
        }
    }

    /// Parses a condition; the error says where it stopped making sense.
    public static func parse(_ text: String) throws(FCMError) -> TopicCondition {
        var parser = ConditionParser(Array(text.utf8))
        let condition = try parser.parseExpression(depth: 0)
        parser.skipSpaces()
        guard parser.atEnd else { throw parser.failure("unexpected text") }
        return condition
    }
}

private struct ConditionParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    func failure(_ what: String) -> FCMError {
        FCMError(.invalidArgument, "Invalid condition: \(what) at character \(index)", field: "message.condition")
    }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
    }

    mutating func consume(_ literal: String) -> Bool {
        let lit = Array(literal.utf8)
        guard index + lit.count <= bytes.count, Array(bytes[index..<index + lit.count]) == lit else { return false }
        index += lit.count
        return true
    }

    mutating func parseExpression(depth: Int) throws(FCMError) -> TopicCondition {
        guard depth < 32 else { throw failure("too deeply nested") }
        var left = try parseUnary(depth: depth)
        while true {
            skipSpaces()
            if consume("&&") {
                left = .and(left, try parseUnary(depth: depth))
            } else if consume("||") {
                left = .or(left, try parseUnary(depth: depth))
            } else {
                return left
            }
        }
    }

    mutating func parseUnary(depth: Int) throws(FCMError) -> TopicCondition {
        skipSpaces()
        if consume("!") { return .not(try parseUnary(depth: depth + 1)) }
        if consume("(") {
            let inner = try parseExpression(depth: depth + 1)
            skipSpaces()
            guard consume(")") else { throw failure("missing ')'") }
            return inner
        }
        return try parseTerm()
    }

    mutating func parseTerm() throws(FCMError) -> TopicCondition {
        skipSpaces()
        guard consume("'") else { throw failure("expected a topic name in single quotes") }
        let start = index
        while index < bytes.count, bytes[index] != 39 { index += 1 }
        guard index < bytes.count else { throw failure("unterminated topic name") }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        guard IdentifierShape.isValidTopicName(name) else { throw failure("invalid topic name '\(name)'") }
        skipSpaces()
        guard consume("in") else { throw failure("expected 'in topics'") }
        skipSpaces()
        guard consume("topics") else { throw failure("expected 'in topics'") }
        return .topic(name)
    }
}
