// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
@testable import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Testing

/// `HTTP2StreamCodec` stands where NIO's `HTTP2FramePayloadToHTTP1ServerCodec` stood: a stream's
/// frames must become the same parts (or the same error), its parts the same frames, and a whole
/// answer the same fields and bytes.
@Suite("HTTP/2 stream codec: read and written as NIO's codec")
struct HTTP2StreamCodecTests {
    /// What a channel made of `handler` reads from one HEADERS frame: its parts, or the name of
    /// the error's type.
    static func read(_ block: [(String, String)], endStream: Bool, by handler: some ChannelHandler) throws -> String {
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: HPACKHeaders(block), endStream: endStream)))
        } catch {
            return "error \(type(of: error))"
        }
        var parts: [String] = []
        if case .rstStream(let code) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) { parts.append("reset \(code)") }
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head):
                parts.append("\(head.method.rawValue) \(head.uri) \(head.version) \(head.headers.map { "\($0.name)=\($0.value)" })")
            case .body(let bytes): parts.append("body \(bytes.readableBytes)")
            case .end(let trailers): parts.append("end \(trailers.map { "\($0)" } ?? "-")")
            }
        }
        return parts.joined(separator: " | ")
    }

    static let request = [
        (":method", "POST"), (":scheme", "https"), (":path", "/v1/projects/p/messages:send"), (":authority", "localhost"),
    ]

    @Test(arguments: [
        request,
        request + [("content-type", "application/json"), ("content-length", "12")],
        request + [("host", "elsewhere"), ("x-a", "1"), ("x-a", "2")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/health"), (":authority", "localhost:8443")],
        [(":method", "DELETE"), (":scheme", "https"), (":path", "/x"), (":authority", "h")],
        [(":method", "BREW"), (":scheme", "https"), (":path", "/x"), (":authority", "h")],
        [(":method", "POST"), (":scheme", "https"), (":path", "/x")],
        [(":method", "POST"), (":path", "/x"), (":authority", "h")],
        [(":scheme", "https"), (":path", "/x"), (":authority", "h")],
        [(":method", "POST"), (":scheme", "https"), (":authority", "h")],
        [(":method", "POST"), (":scheme", "https"), (":path", "/x"), (":path", "/y"), (":authority", "h")],
        [(":method", "POST"), (":scheme", "https"), (":path", "/a b"), (":authority", "h")],
        [(":method", "POST"), (":scheme", "https"), (":path", "/x"), (":authority", "h\u{7F}")],
        [(":method", "POST"), (":path", "/a b"), (":path", "/c"), (":authority", "h"), (":authority", "i")],
        [(":method", "GET"), (":method", "GET"), (":scheme", "https")],
        request + [(":protocol", "websocket")],
    ])
    func aRequestHeadReadsAsNIOReadsIt(block: [(String, String)]) throws {
        for endStream in [false, true] {
            let ours = try Self.read(block, endStream: endStream, by: HTTP2StreamCodec(connection: Self.connection(), stream: 1))
            #expect(ours == (try Self.nios(block, endStream: endStream)), "\(block) endStream \(endStream)")
        }
    }

    /// What NIO made of a request block: RST_STREAM `PROTOCOL_ERROR` when its validation refused
    /// it (which `HTTP2FieldRules` judges, held to NIO's in `theFieldRulesAreNIOs`), otherwise
    /// what its codec read.
    static func nios(_ block: [(String, String)], endStream: Bool) throws -> String {
        if HTTP2FieldRules.requestFault(HPACKHeaders(block)) != nil { return "reset \(HTTP2ErrorCode.protocolError)" }
        return try read(block, endStream: endStream, by: HTTP2FramePayloadToHTTP1ServerCodec())
    }

    /// A random block from the fields and values a request head is judged by: each pseudo-field
    /// present, missing, repeated or out of order; names uppercase, spaced or connection-specific;
    /// values with spaces, control bytes and DEL; `host`, `content-length` and methods with and
    /// without a body.
    static func randomBlock(_ rng: inout SeededRandom) -> [(String, String)] {
        let names = [
            ":method", ":path", ":scheme", ":authority", ":protocol", ":status", ":", ":x", "host", "content-length", "x-a", "te",
            "X-Upper", "connection", "keep-alive", "a b",
        ]
        let values = [
            "POST", "GET", "HEAD", "DELETE", "CONNECT", "BREW", "/x", "/a b", "", "https", "h", "h\u{7F}", "a\tb", "é", "12", "0",
            "trailers", "a\rb", "a\u{0}b",
        ]
        var block: [(String, String)] = []
        for (name, value) in request where rng.next() % 8 != 0 { block.append((name, value)) }
        for _ in 0..<Int(rng.next() % 4) {
            let field = (names[Int(rng.next() % UInt64(names.count))], values[Int(rng.next() % UInt64(values.count))])
            block.insert(field, at: Int(rng.next() % UInt64(block.count + 1)))
        }
        return block
    }

    /// Random blocks, read by both.
    @Test func randomBlocksReadAsNIOReadsThem() throws {
        var rng = SeededRandom(seed: 29)
        for _ in 0..<2_000 {
            let block = Self.randomBlock(&rng)
            let endStream = rng.next() % 2 == 0
            let ours = try Self.read(block, endStream: endStream, by: HTTP2StreamCodec(connection: Self.connection(), stream: 1))
            #expect(ours == (try Self.nios(block, endStream: endStream)), "\(block) endStream \(endStream)")
        }
    }

    @Test func theRequestsAuthorityIsKeptForTheHostRule() throws {
        let codec = HTTP2StreamCodec(connection: Self.connection(), stream: 1)
        let channel = EmbeddedChannel(handler: codec)
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: HPACKHeaders(Self.request + [("host", "other")]))))
        #expect(codec.authority == "localhost")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func bodyAndTrailersEndTheRequestAsNIOsCodecEndsIt() throws {
        let frames: [HTTP2Frame.FramePayload] = [
            .headers(.init(headers: HPACKHeaders(Self.request))),
            .data(.init(data: .byteBuffer(ByteBuffer(string: "{\"a\":1}")))),
            .windowUpdate(windowSizeIncrement: 10),
            .data(.init(data: .byteBuffer(ByteBuffer(string: "")), endStream: false)),
            .headers(.init(headers: HPACKHeaders([("x-trailer", "1")]), endStream: true)),
        ]
        func parts(_ handler: some ChannelHandler) throws -> [String] {
            let channel = EmbeddedChannel(handler: handler)
            for frame in frames { try channel.writeInbound(frame) }
            var out: [String] = []
            while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
                switch part {
                case .head: out.append("head")
                case .body(let bytes): out.append("body \(String(buffer: bytes))")
                case .end: out.append("end")
                }
            }
            _ = try channel.finish(acceptAlreadyClosed: true)
            return out
        }
        // NIO's hands on an empty DATA frame as an empty body part, which nothing reads; the
        // trailers' fields are read by nothing behind either.
        let nios = try parts(HTTP2FramePayloadToHTTP1ServerCodec()).filter { $0 != "body " }
        #expect(try parts(HTTP2StreamCodec(connection: Self.connection(), stream: 1)) == nios)
        #expect(nios == ["head", "body {\"a\":1}", "end"])
    }

    /// The frames a channel made of `handler` writes for `parts`, each as text.
    static func frames(for parts: [HTTPServerResponsePart], by handler: some ChannelHandler) throws -> [String] {
        let channel = EmbeddedChannel(handler: handler)
        for part in parts { try channel.writeOutbound(part) }
        var out: [String] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) { out.append(describe(frame)) }
        _ = try channel.finish(acceptAlreadyClosed: true)
        return out
    }

    static func describe(_ frame: HTTP2Frame.FramePayload) -> String {
        switch frame {
        case .headers(let h): "HEADERS \(h.headers.map { "\($0.name)=\($0.value)" }) end=\(h.endStream)"
        case .data(let d):
            if case .byteBuffer(let b) = d.data { "DATA \(String(buffer: b)) end=\(d.endStream)" } else { "DATA file end=\(d.endStream)" }
        case .rstStream(let code): "RST_STREAM \(code)"
        default: "\(frame)"
        }
    }

    @Test func partsBecomeTheFramesNIOsCodecWrites() throws {
        var fields = HTTPHeaders()
        fields.add(name: "Content-Type", value: "text/event-stream")
        fields.add(name: "Cache-Control", value: "no-cache")
        fields.add(name: "Connection", value: "close")
        fields.add(name: "Transfer-Encoding", value: "chunked")
        fields.add(name: "Keep-Alive", value: "timeout=5")
        fields.add(name: "Upgrade", value: "h2c")
        fields.add(name: "Proxy-Connection", value: "x")
        var trailers = HTTPHeaders()
        trailers.add(name: "X-Done", value: "yes")
        for parts: [HTTPServerResponsePart] in [
            [
                .head(HTTPResponseHead(version: .http2, status: .ok, headers: fields)),
                .body(.byteBuffer(ByteBuffer(string: "data: 1\n\n"))), .end(nil),
            ],
            [.head(HTTPResponseHead(version: .http2, status: .continue))],
            [.head(HTTPResponseHead(version: .http2, status: .noContent)), .end(trailers)],
        ] {
            let ours = try Self.frames(for: parts, by: HTTP2StreamCodec(connection: Self.connection(), stream: 1))
            #expect(ours == (try Self.frames(for: parts, by: HTTP2FramePayloadToHTTP1ServerCodec())))
        }
    }

    /// An HTTP/2 stream of the emulator's handler behind a codec, answering with `respond`:
    /// `ours` the stream `HTTPServer` builds, where answers go whole; otherwise NIO's codec, as
    /// the stream was built before.
    static func stream(ours: Bool, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> EmbeddedChannel {
        let responder = HTTPResponder(
            router: Router(unmounted: GoogleFrontEnd.dialect), maxBodyBytes: 64, handle: respond,
            tooLarge: { _ in HTTPResponse(status: 413, contentType: "text/plain", body: "too large") })
        let channel = EmbeddedChannel()
        let handler = HTTPRequestHandler(responder: responder, logger: .quiet)
        if ours {
            let codec = HTTP2StreamCodec(connection: connection(), stream: 1)
            handler.http2 = codec
            try channel.pipeline.syncOperations.addHandler(codec)
        } else {
            try channel.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
        }
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    /// The fields of the answer's HEADERS, its DATA joined, whether the last frame ends the stream
    /// and whether the stream is still open.
    static func answer(ours: Bool, method: String, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> String {
        let channel = try stream(ours: ours, respond)
        let block = [(":method", method), (":scheme", "https"), (":path", "/x"), (":authority", "localhost")]
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: HPACKHeaders(block), endStream: true)))
        var fields = ""
        var body = ""
        var ended = false
        var frames = 0
        while let frame = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) {
            frames += 1
            switch frame {
            case .headers(let h):
                fields = "\(h.headers.map { "\($0.name)=\($0.value)" })"
                ended = h.endStream
            case .data(let d):
                if case .byteBuffer(let b) = d.data { body += String(buffer: b) }
                ended = d.endStream
            default: Issue.record("unexpected \(frame)")
            }
        }
        #expect(frames > 0)
        return "\(fields) \(body) ended=\(ended) open=\(channel.isActive)"
    }

    @Test(arguments: ["POST", "HEAD"])
    func aWholeAnswerHasTheFieldsAndBytesOfItsParts(method: String) throws {
        let answers: [@Sendable (HTTPRequest) -> HTTPResponse] = [
            { _ in HTTPResponse(status: 200, contentType: "application/json", body: "{\"name\":\"x\"}") },
            { _ in HTTPResponse(status: 404, headers: [("Content-Type", "text/html"), ("Content-Length", "999")], body: Array("gone".utf8))
            },
            { _ in HTTPResponse(status: 204, headers: [("X-Upper", "A")], body: []) },
            { _ in
                var r = HTTPResponse(status: 503, contentType: "text/plain", body: "later"); r.outcome = .writeThenClose; return r
            },
        ]
        for respond in answers {
            let ours = try Self.answer(ours: true, method: method, respond)
            #expect(ours == (try Self.answer(ours: false, method: method, respond)))
        }
    }

    @Test func aStreamFaultResetsOnlyItsStream() throws {
        let channel = EmbeddedChannel()
        let codec = HTTP2StreamCodec(connection: Self.connection(), stream: 1)
        try channel.pipeline.syncOperations.addHandler(codec)
        codec.resetStream(.refusedStream)
        let frame = try #require(try channel.readOutbound(as: HTTP2Frame.FramePayload.self))
        #expect(Self.describe(frame) == "RST_STREAM \(HTTP2ErrorCode.refusedStream)")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    static func connection() -> HTTP2Connection { HTTP2Connection(idleTimeout: .seconds(120), logger: .quiet) }
}
