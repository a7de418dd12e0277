// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMTransport
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

/// `HTTP2FieldRules` stands in for NIO's validation of request header blocks, which the server
/// turns off: for any block it must refuse what NIO's server handler refuses, with the same
/// fault, and let through what it lets through. (A field with an empty name never reaches either:
/// NIO's HPACK decoder ends the connection for it, checking or not.)
@Suite("HTTP/2 field rules: NIO's validation of requests")
struct HTTP2FieldRulesTests {
    /// NIO's own verdict: a client handler that checks nothing sends `block` on stream 1 (after
    /// `request` and END_STREAM-less, as trailers, when `trailers`) to a server handler that checks
    /// header blocks. nil: the server handed the frame on; otherwise the name of its fault.
    static func nioVerdict(_ block: [(String, String)], trailers: Bool) throws -> String? {
        let client = EmbeddedChannel(
            handler: NIOHTTP2Handler(mode: .client, headerBlockValidation: .disabled, contentLengthValidation: .disabled))
        let server = EmbeddedChannel(handler: NIOHTTP2Handler(mode: .server, contentLengthValidation: .disabled))
        defer {
            _ = try? client.finish(acceptAlreadyClosed: true)
            _ = try? server.finish(acceptAlreadyClosed: true)
        }
        var fault: String?
        func shuttle() throws {
            var moved = true
            while moved {
                moved = false
                while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    do {
                        try server.writeInbound(bytes)
                    } catch {
                        // NIO fires the fault it found, then resets the stream.
                        fault = "\(type(of: error))"
                    }
                }
                while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    try client.writeInbound(bytes)
                }
            }
        }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
        try client.connect(to: address).wait()
        try server.connect(to: address).wait()
        try shuttle()
        if trailers {
            try client.writeOutbound(
                HTTP2Frame(streamID: 1, payload: .headers(.init(headers: HPACKHeaders(HTTP2StreamCodecTests.request)))))
        }
        try client.writeOutbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: HPACKHeaders(block), endStream: true))))
        try shuttle()
        var handedOn = 0
        while let frame = try server.readInbound(as: HTTP2Frame.self) {
            if case .headers = frame.payload, frame.streamID == 1 { handedOn += 1 }
        }
        if let fault { return fault }
        #expect(handedOn == (trailers ? 2 : 1), "NIO neither refused nor handed on \(block)")
        return nil
    }

    static func ours(_ block: [(String, String)], trailers: Bool) -> String? {
        let fault = trailers ? HTTP2FieldRules.trailersFault(HPACKHeaders(block)) : HTTP2FieldRules.requestFault(HPACKHeaders(block))
        return fault.map { "\(type(of: $0))" }
    }

    @Test(arguments: [
        HTTP2StreamCodecTests.request,
        HTTP2StreamCodecTests.request + [("te", "trailers"), ("x-a", "a b\t")],
        [(":method", "CONNECT"), (":authority", "h:443")],
        [(":method", "CONNECT"), (":authority", "h:443"), (":path", "/")],
        [(":method", "CONNECT"), (":path", "/")],
        [(":method", "POST"), (":scheme", "https"), (":path", "")],
        [(":method", "POST"), (":scheme", "https")],
        HTTP2StreamCodecTests.request + [("X-Upper", "1")],
        HTTP2StreamCodecTests.request + [(":", "1")],
        HTTP2StreamCodecTests.request + [("connection", "close")],
        HTTP2StreamCodecTests.request + [("te", "gzip")],
        HTTP2StreamCodecTests.request + [("x-a", "a\rb")],
        HTTP2StreamCodecTests.request + [(":status", "200")],
        HTTP2StreamCodecTests.request + [(":protocol", "websocket")],
        HTTP2StreamCodecTests.request + [(":x", "1")],
        [("x-a", "1")] + HTTP2StreamCodecTests.request,
        HTTP2StreamCodecTests.request + [(":method", "GET")],
        [(":method", "POST"), (":scheme", "https"), (":path", "/a b"), (":authority", "h")],
    ])
    func aRequestIsRefusedAsNIORefusesIt(block: [(String, String)]) throws {
        #expect(Self.ours(block, trailers: false) == (try Self.nioVerdict(block, trailers: false)), "\(block)")
    }

    @Test(arguments: [
        [("x-done", "1")],
        [("te", "gzip")],
        [(":path", "/x")],
        [("X-Done", "1")],
        [("x-done", "a\nb")],
        [("connection", "close")],
    ])
    func trailersAreRefusedAsNIORefusesThem(block: [(String, String)]) throws {
        #expect(Self.ours(block, trailers: true) == (try Self.nioVerdict(block, trailers: true)), "\(block)")
    }

    /// Random blocks (`HTTP2StreamCodecTests.randomBlock`), as requests and as trailers.
    @Test func randomBlocksAreJudgedAsNIOJudgesThem() throws {
        var rng = SeededRandom(seed: 31)
        for n in 0..<1_000 {
            let block = HTTP2StreamCodecTests.randomBlock(&rng)
            let trailers = n % 4 == 3
            #expect(
                Self.ours(block, trailers: trailers) == (try Self.nioVerdict(block, trailers: trailers)), "\(block) trailers \(trailers)")
        }
    }
}
