// SPDX-License-Identifier: Apache-2.0

/// Reads the pieces of restricted XML the framer meets (tag names, start tags with their
/// attributes); the framer builds elements from them as the tags arrive.
///
/// Hand-written on purpose, for the subset RFC 6120 §11.1 allows (elements, attributes, text, the
/// five predefined entities and character references; no DTD, comment, PI or CDATA). The two
/// usual alternatives cost more than these two hundred lines:
/// - expat needs a system-library target and `libexpat1-dev` on every machine that builds, which
///   the README's two-command setup cannot promise, and its callbacks would still need the checks
///   below (expat accepts DTDs, comments and PIs and expands internal entities unless told not to).
/// - FoundationXML wraps libxml2: a second shared library in the runtime image and in static
///   builds, a parser that takes whole documents rather than chunks, and DTD and entity handling
///   that must be switched off option by option.
/// Either way the framer must cut stanzas by hand to cap their size and survive any split of the
/// bytes, so the remaining work is this reader; the fuzz targets in `Fuzz/` exercise it.
enum RestrictedXML {
    struct Tag {
        let name: String
        let attributes: [(String, String)]
        let selfClosing: Bool
    }

    static let maxDepth = 32
    /// CCS stanzas carry a handful of attributes; a peer could send thousands.
    static let maxAttributes = 64

    /// The name of the tag whose name starts at `from`, up to white space, `/` or `>`.
    static func name(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ close: Int) -> String {
        var end = from
        while end < close, !isSpace(bytes[end]), bytes[end] != UInt8(ascii: "/") { end += 1 }
        return String(decoding: bytes[from..<end], as: UTF8.self)
    }

    /// A start tag from `<` at `open` to `>` at `close`.
    static func tag(_ bytes: some RandomAccessCollection<UInt8>, _ open: Int, _ close: Int) throws(XMPPStreamError) -> Tag {
        let b = Array(bytes[bytes.index(bytes.startIndex, offsetBy: open)...bytes.index(bytes.startIndex, offsetBy: close)])
        var i = 1
        let selfClosing = b.count >= 2 && b[b.count - 2] == UInt8(ascii: "/")
        let end = selfClosing ? b.count - 2 : b.count - 1
        let nameStart = i
        while i < end, !isSpace(b[i]) { i += 1 }
        guard i > nameStart else { throw .notWellFormed("tag without a name") }
        let name = try validName(b[nameStart..<i])
        var attributes: [(String, String)] = []
        // Duplicates are looked for among the few attributes a stanza has, and in a set only past
        // eight: a set made for every tag cost more than the looks.
        var seen: Set<String> = []
        while true {
            while i < end, isSpace(b[i]) { i += 1 }
            guard i < end else { break }
            let keyStart = i
            while i < end, b[i] != UInt8(ascii: "="), !isSpace(b[i]) { i += 1 }
            let key = try validName(b[keyStart..<i])
            while i < end, isSpace(b[i]) { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "=") else { throw .notWellFormed("attribute \(key) has no value") }
            i += 1
            while i < end, isSpace(b[i]) { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
                throw .notWellFormed("unquoted attribute \(key)")
            }
            let quote = b[i]
            i += 1
            let valueStart = i
            while i < end, b[i] != quote { i += 1 }
            guard i < end, let value = XMLEscaping.unescape(b[valueStart..<i]) else { throw .notWellFormed("bad value of \(key)") }
            if attributes.count == 8 { seen = Set(attributes.map(\.0)) }
            let duplicate = attributes.count < 8 ? attributes.contains { $0.0 == key } : !seen.insert(key).inserted
            guard !duplicate else { throw .notWellFormed("duplicate attribute \(key)") }
            guard attributes.count < maxAttributes else { throw .policyViolation("more than \(maxAttributes) attributes on <\(name)>") }
            attributes.append((key, value))
            i += 1
        }
        return Tag(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    /// An element or attribute name: UTF-8, and none of the characters that delimit markup, so
    /// that a name echoed back (stanza errors echo the stanza) cannot break the server's output.
    static func validName(_ bytes: ArraySlice<UInt8>) throws(XMPPStreamError) -> String {
        // A switch, not a set: a set built and hashed for every name was a tenth of an XMPP send.
        func forbidden(_ b: UInt8) -> Bool {
            switch b {
            case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"),
                UInt8(ascii: "="), UInt8(ascii: "/"):
                true
            default: false
            }
        }
        guard !bytes.isEmpty, !bytes.contains(where: forbidden), let name = String(validating: bytes, as: UTF8.self)
        else { throw .notWellFormed("invalid element or attribute name") }
        return name
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
