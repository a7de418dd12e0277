// SPDX-License-Identifier: Apache-2.0

import NIOCore

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

    /// What `feed(_:)` was given and no tag has taken yet (at most a partial tag), for callers
    /// without a channel; in a pipeline the partial tag stays in NIO's buffer (`XMPPStreamDecoder`).
    private var carry = ByteBuffer()
    /// Bytes taken from the stream so far, so positions can be counted from its start.
    private var consumed = 0
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

    /// Reads `bytes` after what earlier calls left, for callers without a channel (scenarios,
    /// fuzzers, tests).
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(XMPPStreamError) -> [XMPPStreamEvent] {
        var pending = carry
        carry = ByteBuffer()
        pending.writeBytes(bytes)
        defer {
            pending.discardReadBytes()
            carry = pending
        }
        return try feed(&pending)
    }

    /// Takes the complete tags at the front of `input`, and the text before and between them;
    /// what it leaves is at most the start of a tag, for the next read to complete.
    public mutating func feed(_ input: inout ByteBuffer) throws(XMPPStreamError) -> [XMPPStreamEvent] {
        var events: [XMPPStreamEvent] = []
        var failure: XMPPStreamError?
        let taken = input.withUnsafeReadableBytes { raw -> Int in
            do throws(XMPPStreamError) {
                return try self.read(raw, into: &events)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        input.moveReaderIndex(forwardBy: taken)
        consumed += taken
        return events
    }

    /// Reads tags from `raw` while they are complete; returns how many bytes it took. After the
    /// stream's end tag the rest is taken unread.
    private mutating func read(_ raw: UnsafeRawBufferPointer, into events: inout [XMPPStreamEvent]) throws(XMPPStreamError) -> Int {
        var scan = 0
        while phase != .closed {
            guard let tagOpen = raw[scan...].firstIndex(of: UInt8(ascii: "<")) else {
                try takeText(raw, scan..<raw.count)
                return raw.count
            }
            try takeText(raw, scan..<tagOpen)
            scan = tagOpen
            guard let close = Self.tagEnd(raw, from: tagOpen, resuming: &tagSearch) else {
                try checkSize(from: scan, to: raw.count)
                return scan
            }
            tagSearch = TagSearch()
            scan = close + 1
            try handleTag(raw, tagOpen, close, into: &events)
        }
        return raw.count
    }

    /// Text between tags: the open element's, or white space between stanzas (keepalives).
    private mutating func takeText(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) throws(XMPPStreamError) {
        guard !range.isEmpty else { return }
        guard open.isEmpty else {
            open[open.count - 1].text.append(contentsOf: raw[range])
            try checkSize(from: range.lowerBound, to: range.upperBound)
            return
        }
        for b in raw[range] where !(b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D) {
            throw .notWellFormed("text outside a stanza")
        }
    }

    /// A stanza, read or still arriving (from `scan` to `end` of this read when none has begun), may
    /// not pass `maxStanzaBytes`.
    private func checkSize(from scan: Int, to end: Int) throws(XMPPStreamError) {
        let start = stanzaStart ?? (consumed + scan)
        if consumed + end - start > maxStanzaBytes { throw .policyViolation("stanza larger than \(maxStanzaBytes) bytes") }
    }

    private mutating func handleTag(
        _ buffer: UnsafeRawBufferPointer, _ tagOpen: Int, _ close: Int, into events: inout [XMPPStreamEvent]
    ) throws(XMPPStreamError) {
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
                try closeElement(startingAt: tagOpen, endingAt: close, into: &events)
            } else {
                guard phase == .stream, name == "stream:stream" else { throw .notWellFormed("unexpected end tag") }
                phase = .closed
                events.append(.streamClosed)
            }
        default:
            let tag = try RestrictedXML.tag(buffer, tagOpen, close)
            let opensStream = open.isEmpty && XMPPElement.localName(of: tag.name) == "stream" && !tag.selfClosing
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
                if open.isEmpty { stanzaStart = consumed + tagOpen }
                open.append(OpenElement(element: XMPPElement(name: tag.name, attributes: tag.attributes)))
                if tag.selfClosing { try closeElement(startingAt: tagOpen, endingAt: close, into: &events) }
            case .closed:
                break
            }
        }
    }

    /// The innermost open element is complete: its text is decoded and it joins its parent, or,
    /// outermost, it is a stanza.
    private mutating func closeElement(
        startingAt tagOpen: Int, endingAt close: Int, into events: inout [XMPPStreamEvent]
    ) throws(XMPPStreamError) {
        guard var done = open.popLast() else { return }
        guard let text = XMLEscaping.unescape(done.text[...]) else { throw .notWellFormed("bad character data in <\(done.element.name)>") }
        done.element.text = text
        guard open.isEmpty else {
            open[open.count - 1].element.children.append(done.element)
            return
        }
        try checkSize(from: tagOpen, to: close + 1)
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

    /// Where the search for a tag's end stopped: bytes after its `<` already read, and the quote
    /// it was inside, if any. Counted from the `<`, which the next read starts at.
    struct TagSearch: Sendable, Equatable {
        var offset = 1
        var quote: UInt8?
    }

    /// The index of the `>` that ends the tag opened at `open`, skipping quoted attribute values,
    /// or nil with `search` saying where to go on when more bytes arrive.
    static func tagEnd(_ bytes: UnsafeRawBufferPointer, from open: Int, resuming search: inout TagSearch) -> Int? {
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
