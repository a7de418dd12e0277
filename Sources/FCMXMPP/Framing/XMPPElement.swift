// SPDX-License-Identifier: Apache-2.0

/// A parsed stanza: an element with attributes, children and text. Names keep their prefix
/// (`data:gcm`); `localName` drops it, which is how CCS payload elements are found whichever form
/// a client uses (the XMPP reference shows both, https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref).
public struct XMPPElement: Sendable, Equatable {
    public var name: String
    public var attributes: [(String, String)]
    public var children: [XMPPElement]
    /// The element's own text, entity-decoded, children's text excluded.
    public var text: String

    public init(name: String, attributes: [(String, String)] = [], children: [XMPPElement] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    public static func == (a: XMPPElement, b: XMPPElement) -> Bool {
        a.name == b.name && a.text == b.text && a.children == b.children
            && a.attributes.count == b.attributes.count && zip(a.attributes, b.attributes).allSatisfy { $0 == $1 }
    }

    /// The part after the last ':' that has text after it (`split(separator: ":").last`), found
    /// by byte: a Character split was a few percent of an XMPP send, asked of every stanza and
    /// child. A name with no such part is its own local name.
    public var localName: String { Self.localName(of: name) }

    /// `localName` of any name, such as a tag's before it is an element.
    static func localName(of name: String) -> String {
        let bytes = name.utf8
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: ":") { end = bytes.index(before: end) }
        guard end > bytes.startIndex else { return name }
        guard let colon = bytes[..<end].lastIndex(of: UInt8(ascii: ":")) else { return end == bytes.endIndex ? name : String(name[..<end]) }
        return String(name[bytes.index(after: colon)..<end])
    }

    public func attribute(_ name: String) -> String? { attributes.first { $0.0 == name }?.1 }

    /// The first child with this local name.
    public func child(_ localName: String) -> XMPPElement? { children.first { $0.localName == localName } }

    /// The element as XML, attribute values and text escaped.
    public var xml: String {
        // Written as bytes and made a string once: appending to a String cost a few hundred
        // instructions a piece, and an ack has a dozen pieces.
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        for (key, value) in attributes {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "=\"".utf8)
            XMLEscaping.escape(value, quotes: true, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if children.isEmpty, text.isEmpty {
            out.append(contentsOf: "/>".utf8)
            return
        }
        out.append(UInt8(ascii: ">"))
        XMLEscaping.escape(text, quotes: false, into: &out)
        for child in children { child.write(into: &out) }
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ">"))
    }
}

public enum XMLEscaping {
    /// By UTF-8 byte, never by Character: a `<` followed by a combining mark is one Character
    /// (`"<\u{65B}"`), which a Character switch would let through unescaped (found by fuzzing).
    /// The five are ASCII, and no byte of a multi-byte UTF-8 sequence is, so the bytes say exactly
    /// what the scalars would; text with none of them (most of it: a JSON payload in a stanza) is
    /// returned as it is. Scalar by scalar, this was half of an XMPP send's instructions.
    public static func escape(_ s: String, quotes: Bool) -> String {
        var text = s
        guard text.withUTF8({ $0.contains { entity(for: $0, quotes: quotes) != nil } }) else { return s }
        var out: [UInt8] = []
        escape(s, quotes: quotes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` escaped to `out`: whole when there is nothing to escape.
    static func escape(_ s: String, quotes: Bool, into out: inout [UInt8]) {
        var text = s
        text.withUTF8 { bytes in
            guard bytes.contains(where: { entity(for: $0, quotes: quotes) != nil }) else {
                out.append(contentsOf: bytes)
                return
            }
            out.reserveCapacity(out.count + bytes.count + 32)
            for byte in bytes {
                if let entity = entity(for: byte, quotes: quotes) { out.append(contentsOf: entity.utf8) } else { out.append(byte) }
            }
        }
    }

    private static func entity(for byte: UInt8, quotes: Bool) -> String? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\"") where quotes: "&quot;"
        case UInt8(ascii: "'") where quotes: "&apos;"
        default: nil
        }
    }

    /// Decodes the five predefined entities and numeric references; nil on anything else
    /// (no DTD, so no other entity can be defined: RFC 6120 §11.1).
    static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(validating: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == UInt8(ascii: "&") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            guard let semicolon = bytes[i...].firstIndex(of: UInt8(ascii: ";")), semicolon - i <= 10 else { return nil }
            let name = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let value: UInt32?
                if name.hasPrefix("#x") {
                    value = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    value = UInt32(name.dropFirst())
                } else {
                    value = nil
                }
                guard let value, let scalar = Unicode.Scalar(value) else { return nil }
                out.append(contentsOf: String(Character(scalar)).utf8)
            }
            i = semicolon + 1
        }
        return String(validating: out, as: UTF8.self)
    }
}
