// SPDX-License-Identifier: Apache-2.0

/// A topic condition such as `'a' in topics && ('b' in topics || !('c' in topics))`, parsed once
/// by the front that received it and carried into the core as this value.
///
/// Grammar (https://firebase.google.com/docs/cloud-messaging/send-topic-messages): terms are
/// `'name' in topics` with single quotes, keywords in any case; `!` negates a term or a
/// parenthesised group; `&&` and `||` combine. "FCM first evaluates any conditions in
/// parentheses, and then evaluates the expression from left to right", so `&&` and `||` have the
/// same precedence here and associate to the left: `A || B && C` is `(A || B) && C`.
///
/// A peer writes the text, so the parser enforces the calling API's limits while it reads: it
/// stops at the sixth topic (v1) or the third operator (legacy and XMPP) and at 32 levels of `!`
/// and parentheses, so the tree it returns is tiny whatever the length of the text.
public struct TopicCondition: Sendable, Equatable {
    /// What one API allows in a condition.
    public struct Limits: Sendable {
        public let maxTopics: Int
        public let maxOperators: Int
        package static let maxDepth = 32

        /// "Up to five topics" (v1 reference).
        public static let v1 = Limits(maxTopics: 5, maxOperators: 4)
        /// "Maximum two operators per topic message" (legacy reference; XMPP uses the same keys).
        public static let legacy = Limits(maxTopics: 3, maxOperators: 2)
    }

    indirect enum Expression: Sendable, Equatable {
        case topic(String)
        case not(Expression)
        case and(Expression, Expression)
        case or(Expression, Expression)
    }

    /// The condition as the sender wrote it (after the front's normalisation).
    public let text: String
    let expression: Expression
    /// Every topic named, with repeats, in the order written.
    public let topics: [String]
    /// How many `&&` and `||` operators it uses.
    public let binaryOperatorCount: Int

    /// Parses a condition within `limits`; the error says where it stopped making sense.
    public static func parse(_ text: String, limits: Limits = .v1) throws(FCMError) -> TopicCondition {
        var parser = ConditionParser(Array(text.utf8), limits: limits)
        let expression = try parser.parseExpression(depth: 0)
        parser.skipSpaces()
        guard parser.atEnd else { throw parser.failure("unexpected text") }
        return TopicCondition(text: text, expression: expression, topics: parser.topics, binaryOperatorCount: parser.operators)
    }

    /// Whether an instance subscribed to `topics` matches.
    public func matches(_ isSubscribed: (String) -> Bool) -> Bool { expression.matches(isSubscribed) }

    public static func == (lhs: TopicCondition, rhs: TopicCondition) -> Bool { lhs.expression == rhs.expression }
}

extension TopicCondition.Expression {
    /// Recursion is bounded: the parser builds at most `maxDepth` levels around at most a few terms.
    func matches(_ isSubscribed: (String) -> Bool) -> Bool {
        switch self {
        case .topic(let name): return isSubscribed(name)
        case .not(let inner): return !inner.matches(isSubscribed)
        case .and(let a, let b): return a.matches(isSubscribed) && b.matches(isSubscribed)
        case .or(let a, let b): return a.matches(isSubscribed) || b.matches(isSubscribed)
        }
    }
}

private struct ConditionParser {
    private let bytes: [UInt8]
    private let limits: TopicCondition.Limits
    private var index = 0
    private(set) var topics: [String] = []
    private(set) var operators = 0

    init(_ bytes: [UInt8], limits: TopicCondition.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    var atEnd: Bool { index >= bytes.count }

    func failure(_ what: String) -> FCMError {
        FCMError(.invalidArgument, "Invalid condition: \(what) at character \(index)", field: "message.condition")
    }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
    }

    /// Matches `literal` ignoring ASCII case: FCM's reference says of `condition` "this value is
    /// case-insensitive", so `'news' IN TOPICS` reads as `'news' in topics` (legacy reference,
    /// https://firebase.google.com/docs/cloud-messaging/http-server-ref, table 1). Topic names
    /// are not read here: they match exactly, as subscriptions do ('topiC' and 'Topic' are
    /// different topics, https://github.com/firebase/firebase-admin-java/issues/104).
    mutating func consume(_ literal: StaticString) -> Bool {
        let matched = literal.withUTF8Buffer { lit in
            index + lit.count <= bytes.count && (0..<lit.count).allSatisfy { Self.sameIgnoringCase(bytes[index + $0], lit[$0]) }
        }
        if matched { index += literal.utf8CodeUnitCount }
        return matched
    }

    /// Whether `byte` is `literal`, or its upper case when `literal` is a lower-case ASCII letter.
    private static func sameIgnoringCase(_ byte: UInt8, _ literal: UInt8) -> Bool {
        byte == literal || ((97...122).contains(literal) && byte == literal - 32)
    }

    mutating func parseExpression(depth: Int) throws(FCMError) -> TopicCondition.Expression {
        var left = try parseUnary(depth: depth)
        while true {
            skipSpaces()
            let isAnd: Bool
            if consume("&&") {
                isAnd = true
            } else if consume("||") {
                isAnd = false
            } else {
                return left
            }
            operators += 1
            guard operators <= limits.maxOperators else { throw failure("more than \(limits.maxOperators) operators") }
            let right = try parseUnary(depth: depth)
            left = isAnd ? .and(left, right) : .or(left, right)
        }
    }

    mutating func parseUnary(depth: Int) throws(FCMError) -> TopicCondition.Expression {
        guard depth < TopicCondition.Limits.maxDepth else { throw failure("too deeply nested") }
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

    mutating func parseTerm() throws(FCMError) -> TopicCondition.Expression {
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
        topics.append(name)
        guard topics.count <= limits.maxTopics else { throw failure("more than \(limits.maxTopics) topics") }
        return .topic(name)
    }
}
