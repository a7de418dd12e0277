// SPDX-License-Identifier: Apache-2.0

/// Splits a client's bytes into stream events, whatever the chunking: a stanza split across reads
/// is built as its tags arrive and given out when its last one has. Restricted XML only (RFC 6120 §11.1): no DTD, comments or
/// processing instructions (but the XML declaration before each stream header: RFC 6120 §11.5
/// allows it at the start of every stream, and clients send it at the restart after SASL); text between
/// stanzas must be white space (keepalives); stanzas are capped in size.
public struct XMPPFramer: Sendable {
    public static let defaultMaxStanzaBytes = 1 << 20

    private enum Phase { case header, stream, closed }

    /// An element of the stanza being read, open until its end tag: its text is gathered as raw
    /// bytes and decoded once, when it closes.
    private struct OpenElement: Sendable {
        var element: XMPPElement
        var text: [UInt8] = []
    }

    /// Bytes not yet read: at most a partial tag, or text not yet given to an element.
    private var buffer: [UInt8] = []
    private var scan = 0
    /// Bytes dropped from the front of `buffer` so far, so positions can be counted from the
    /// stream's start.
    private var dropped = 0
    private var phase = Phase.header
    /// The stanza being read: its open elements, outermost first, each parsed once as its start
    /// tag arrives, and where it began in the stream, for the size cap.
    private var open: [OpenElement] = []
    private var stanzaStart: Int?
    /// How far the tag at `scan` has been searched for its end: a tag that arrives a few bytes a
    /// read is searched once in all, not from its `<` again on every read (a 1 MiB tag sent a byte
    /// at a time would otherwise cost half a million million steps).
    private var tagSearch = TagSearch()
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
            guard let tagOpen = buffer[scan...].firstIndex(of: UInt8(ascii: "<")) else {
                try takeText(scan..<buffer.count)
                scan = buffer.count
                try checkSize(pendingTo: buffer.count)
                break
            }
            try takeText(scan..<tagOpen)
            scan = tagOpen
            guard let close = Self.tagEnd(buffer, from: tagOpen, resuming: &tagSearch) else {
                try checkSize(pendingTo: buffer.count)
                break
            }
            tagSearch = TagSearch()
            scan = close + 1
            try handleTag(tagOpen, close, into: &events)
        }
        compact()
        return events
    }

    /// Text between tags: the open element's, or white space between stanzas (keepalives).
    private mutating func takeText(_ range: Range<Int>) throws(XMPPStreamError) {
        guard !range.isEmpty else { return }
        guard open.isEmpty else {
            open[open.count - 1].text.append(contentsOf: buffer[range])
            return
        }
        for b in buffer[range] where !(b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D) {
            throw .notWellFormed("text outside a stanza")
        }
    }

    /// A stanza, read or still arriving, may not pass `maxStanzaBytes`.
    private func checkSize(pendingTo end: Int) throws(XMPPStreamError) {
        let start = stanzaStart ?? (dropped + scan)
        if dropped + end - start > maxStanzaBytes { throw .policyViolation("stanza larger than \(maxStanzaBytes) bytes") }
    }

    private mutating func handleTag(_ tagOpen: Int, _ close: Int, into events: inout [XMPPStreamEvent]) throws(XMPPStreamError) {
        guard tagOpen + 1 < close else { throw .notWellFormed("empty tag") }
        switch buffer[tagOpen + 1] {
        case UInt8(ascii: "?"):
            let isDeclaration = open.isEmpty && !declared && buffer[tagOpen...].starts(with: Array("<?xml ".utf8))
            guard isDeclaration else { throw .restrictedXML("processing instructions are not allowed") }
            declared = true
        case UInt8(ascii: "!"):
            throw .restrictedXML("comments, CDATA and DTDs are not allowed")
        case UInt8(ascii: "/"):
            guard !declared else { throw .restrictedXML("processing instructions are not allowed") }
            let name = RestrictedXML.name(buffer, tagOpen + 2, close)
            if let innermost = open.last {
                guard name == innermost.element.name else {
                    throw .notWellFormed("</\(name)> does not close <\(innermost.element.name)>")
                }
                try closeElement(endingAt: close, into: &events)
            } else {
                guard phase == .stream, name == "stream:stream" else { throw .notWellFormed("unexpected end tag") }
                phase = .closed
                events.append(.streamClosed)
            }
        default:
            let tag = try RestrictedXML.tag(buffer, tagOpen, close)
            let opensStream = open.isEmpty && tag.name.split(separator: ":").last == "stream" && !tag.selfClosing
            if declared {
                // Only a stream header may follow the declaration; anywhere else it is a PI.
                guard opensStream else { throw .restrictedXML("processing instructions are not allowed") }
                declared = false
            }
            switch phase {
            case .header:
                guard opensStream else { throw .notWellFormed("expected <stream:stream>") }
                phase = .stream
                events.append(try Self.streamOpened(tag))
            case .stream:
                if opensStream {
                    // A new stream header between stanzas: the restart after SASL (RFC 6120 §6.4.6).
                    events.append(try Self.streamOpened(tag))
                    return
                }
                guard open.count < RestrictedXML.maxDepth else {
                    throw .policyViolation("elements nested deeper than \(RestrictedXML.maxDepth)")
                }
                if open.isEmpty { stanzaStart = dropped + tagOpen }
                open.append(OpenElement(element: XMPPElement(name: tag.name, attributes: tag.attributes)))
                if tag.selfClosing { try closeElement(endingAt: close, into: &events) }
            case .closed:
                break
            }
        }
    }

    /// The innermost open element is complete: its text is decoded and it joins its parent, or,
    /// outermost, it is a stanza.
    private mutating func closeElement(endingAt close: Int, into events: inout [XMPPStreamEvent]) throws(XMPPStreamError) {
        guard var done = open.popLast() else { return }
        guard let text = XMLEscaping.unescape(done.text[...]) else { throw .notWellFormed("bad character data in <\(done.element.name)>") }
        done.element.text = text
        guard open.isEmpty else {
            open[open.count - 1].element.children.append(done.element)
            return
        }
        try checkSize(pendingTo: close + 1)
        stanzaStart = nil
        events.append(.stanza(done.element))
    }

    public static let streamsNamespace = "http://etherx.jabber.org/streams"

    /// A stream header, once its element is known to be `stream` in the streams namespace, through
    /// whatever prefix the client bound (RFC 6120 §4.8.1; else `invalid-namespace`, §4.9.3.10).
    private static func streamOpened(_ tag: RestrictedXML.Tag) throws(XMPPStreamError) -> XMPPStreamEvent {
        let parts = tag.name.split(separator: ":", maxSplits: 1)
        let binding = parts.count == 2 ? "xmlns:" + parts[0] : "xmlns"
        guard tag.attributes.first(where: { $0.0 == binding })?.1 == streamsNamespace else {
            throw XMPPStreamError(condition: "invalid-namespace", text: "<\(tag.name)> is not in \(streamsNamespace)")
        }
        return .streamOpened(attributes: Dictionary(tag.attributes, uniquingKeysWith: { first, _ in first }))
    }

    /// Drops what was read: open elements hold their own copies of what they need.
    private mutating func compact() {
        guard scan > 0 else { return }
        buffer.removeFirst(scan)
        dropped += scan
        scan = 0
    }

    /// Where the search for a tag's end stopped: bytes after its `<` already read, and the quote
    /// it was inside, if any. Counted from the `<`, so it survives `compact()`.
    struct TagSearch: Sendable, Equatable {
        var offset = 1
        var quote: UInt8?
    }

    /// The index of the `>` that ends the tag opened at `open`, skipping quoted attribute values,
    /// or nil with `search` saying where to go on when more bytes arrive.
    static func tagEnd(_ bytes: [UInt8], from open: Int, resuming search: inout TagSearch) -> Int? {
        var quote = search.quote
        var i = open + search.offset
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
        search = TagSearch(offset: i - open, quote: quote)
        return nil
    }
}
