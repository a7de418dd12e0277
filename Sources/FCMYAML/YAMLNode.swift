// SPDX-License-Identifier: Apache-2.0

/// One node of a YAML document (YAML 1.1, as libyaml reads it): a scalar, a mapping with its
/// pairs in file order, or a sequence, with the 1-based line it starts on.
///
/// Only what our files need: tags are not resolved (a plain scalar is told from a quoted one, and
/// the reader decides what `123` or `true` means), and an alias is the node its anchor named.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        /// The text, and whether it was written plain (unquoted, untagged, not a block literal).
        case scalar(String, plain: Bool)
        case mapping([(key: YAMLNode, value: YAMLNode)])
        case sequence([YAMLNode])
    }

    public let content: Content
    /// The 1-based line the node starts on.
    public let line: Int
    /// How many nodes this one stands for, itself and everything under it, aliases expanded: what
    /// a reader that walks the tree visits (`YAMLDocument.maxNodes` bounds it).
    let weight: Int

    public init(_ content: Content, line: Int) {
        self.content = content
        self.line = line
        switch content {
        case .scalar: weight = 1
        case .mapping(let pairs): weight = pairs.reduce(1) { $0 &+ $1.key.weight &+ $1.value.weight }
        case .sequence(let items): weight = items.reduce(1) { $0 &+ $1.weight }
        }
    }

    /// A mapping's pairs, in file order; nil for a scalar or a sequence.
    public var mapping: [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// A sequence's items; nil for a scalar or a mapping.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// A scalar's text; nil for a mapping or a sequence.
    public var string: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// True for a scalar written plain, whose text may read as a number, a boolean or null.
    public var isPlainScalar: Bool {
        if case .scalar(_, let plain) = content { return plain }
        return false
    }
}
