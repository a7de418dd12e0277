// SPDX-License-Identifier: Apache-2.0

/// Splits a client's bytes into stream events, whatever the chunking: a stanza split across reads
/// is held until it is complete. Restricted XML only (RFC 6120 §11.1): no DTD, comments or
/// processing instructions (but the XML declaration before each stream header: RFC 6120 §11.5
/// allows it at the start of every stream, and clients send it at the restart after SASL); text between
/// stanzas must be white space (keepalives); stanzas are capped in size.
public struct XMPPFramer: Sendable {
    public static let defaultMaxStanzaBytes = 1 << 20

    private enum Phase { case header, stream, closed }

    private var buffer: [UInt8] = []
    private var scan = 0
    private var phase = Phase.header
    /// Where the stanza being read starts in `buffer`, and how deep its elements are nested.
    private var stanzaStart: Int?
    private var depth = 0
    /// An XML declaration was read: the next tag must open a stream.
    private var declared = false
    private let maxStanzaBytes: Int

    public init(maxStanzaBytes: Int = defaultMaxStanzaBytes) {
        self.maxStanzaBytes = maxStanzaBytes
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(XMPPStreamError) -> [XMPPStreamEvent] {
        buffer.append(contentsOf: bytes)
        var events: [XMPPStreamEvent] = []
        while phase != .closed {
            guard let open = buffer[scan...].firstIndex(of: UInt8(ascii: "<")) else {
                try checkText(scan..<buffer.count)
                scan = buffer.count
                try checkSize(pendingFrom: scan)
                break
            }
            try checkText(scan..<open)
            guard let close = Self.tagEnd(buffer, from: open) else {
                scan = open
                try checkSize(pendingFrom: open)
                break
            }
            scan = close + 1
            try handleTag(open, close, into: &events)
        }
        compact()
        return events
    }

    private func checkText(_ range: Range<Int>) throws(XMPPStreamError) {
        guard stanzaStart == nil else { return }
        for b in buffer[range] where !(b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D) {
            throw .notWellFormed("text outside a stanza")
        }
    }

    private func checkSize(pendingFrom open: Int) throws(XMPPStreamError) {
        let start = stanzaStart ?? open
        if buffer.count - start > maxStanzaBytes { throw .policyViolation("stanza larger than \(maxStanzaBytes) bytes") }
    }

    private mutating func handleTag(_ open: Int, _ close: Int, into events: inout [XMPPStreamEvent]) throws(XMPPStreamError) {
        guard open + 1 < close else { throw .notWellFormed("empty tag") }
        switch buffer[open + 1] {
        case UInt8(ascii: "?"):
            let isDeclaration = stanzaStart == nil && !declared && buffer[open...].starts(with: Array("<?xml ".utf8))
            guard isDeclaration else { throw .restrictedXML("processing instructions are not allowed") }
            declared = true
            return
        case UInt8(ascii: "!"):
            throw .restrictedXML("comments, CDATA and DTDs are not allowed")
        case UInt8(ascii: "/"):
            guard !declared else { throw .restrictedXML("processing instructions are not allowed") }
            if stanzaStart != nil {
                depth -= 1
                if depth == 0 { try emitStanza(upTo: close, into: &events) }
            } else {
                guard phase == .stream, XMLParser.name(buffer, open + 2, close) == "stream:stream" else {
                    throw .notWellFormed("unexpected end tag")
                }
                phase = .closed
                events.append(.streamClosed)
            }
        default:
            let tag = try XMLParser.tag(buffer, open, close)
            let opensStream = stanzaStart == nil && tag.name.split(separator: ":").last == "stream" && !tag.selfClosing
            if declared {
                // Only a stream header may follow the declaration; anywhere else it is a PI.
                guard opensStream else { throw .restrictedXML("processing instructions are not allowed") }
                declared = false
            }
            switch phase {
            case .header:
                guard tag.name.split(separator: ":").last == "stream", !tag.selfClosing else {
                    throw .notWellFormed("expected <stream:stream>")
                }
                phase = .stream
                events.append(try Self.streamOpened(tag))
            case .stream:
                if stanzaStart == nil, tag.name.split(separator: ":").last == "stream", !tag.selfClosing {
                    // A new stream header between stanzas: the restart after SASL (RFC 6120 §6.4.6).
                    events.append(try Self.streamOpened(tag))
                    return
                }
                if stanzaStart == nil {
                    stanzaStart = open
                    depth = 0
                }
                if tag.selfClosing {
                    if depth == 0 { try emitStanza(upTo: close, into: &events) }
                } else {
                    depth += 1
                }
            case .closed:
                break
            }
        }
    }

    public static let streamsNamespace = "http://etherx.jabber.org/streams"

    /// A stream header, once its element is known to be `stream` in the streams namespace, through
    /// whatever prefix the client bound (RFC 6120 §4.8.1; else `invalid-namespace`, §4.9.3.10).
    private static func streamOpened(_ tag: XMLParser.Tag) throws(XMPPStreamError) -> XMPPStreamEvent {
        let parts = tag.name.split(separator: ":", maxSplits: 1)
        let binding = parts.count == 2 ? "xmlns:" + parts[0] : "xmlns"
        guard tag.attributes.first(where: { $0.0 == binding })?.1 == streamsNamespace else {
            throw XMPPStreamError(condition: "invalid-namespace", text: "<\(tag.name)> is not in \(streamsNamespace)")
        }
        return .streamOpened(attributes: Dictionary(tag.attributes, uniquingKeysWith: { first, _ in first }))
    }

    private mutating func emitStanza(upTo close: Int, into events: inout [XMPPStreamEvent]) throws(XMPPStreamError) {
        guard let start = stanzaStart else { return }
        stanzaStart = nil
        if close + 1 - start > maxStanzaBytes { throw .policyViolation("stanza larger than \(maxStanzaBytes) bytes") }
        events.append(.stanza(try XMLParser.element(buffer[start...close])))
    }

    private mutating func compact() {
        let keep = stanzaStart ?? scan
        guard keep > 0 else { return }
        buffer.removeFirst(keep)
        scan -= keep
        if stanzaStart != nil { stanzaStart = 0 }
    }

    /// The index of the `>` that ends the tag opened at `open`, skipping quoted attribute values.
    static func tagEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        var quote: UInt8?
        var i = open + 1
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                return i
            }
            i += 1
        }
        return nil
    }
}
