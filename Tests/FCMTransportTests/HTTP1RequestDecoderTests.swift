// SPDX-License-Identifier: Apache-2.0

import FCMTesting
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import FCMTransport

/// The HTTP/1.1 ports' request decoder reads the plainest requests itself and hands anything else
/// to llhttp; either way a client's bytes come out as the same parts and errors as from llhttp
/// alone, however the bytes are cut into reads (HTTP1RequestDecoder.swift).
struct HTTP1RequestDecoderTests {
    static let send =
        "POST /v1/projects/demo/messages:send HTTP/1.1\r\nHost: 127.0.0.1:9099\r\n"
        + "Authorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n"
        + #"{"message":{"topic":"news"}}"#.dropLast()

    /// Streams that are, or after a first plain request become, every kind this decoder reads or
    /// passes on: plain requests, pipelining, closing, and the forms that are llhttp's.
    static let streams: [String] = [
        send,
        send + send,
        "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /x?y=1&z=%41 HTTP/1.0\r\nHost: a\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n",
        "GET / HTTP/1.1\r\nConnection: close\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nConnection: Keep-Alive\r\n\r\n" + send,
        "GET / HTTP/1.1\r\nConnection: close, upgrade\r\nUpgrade: h2c\r\n\r\nGET / HTTP/1.1\r\n\r\n",
        send + "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nA: b\r\n\r\n" + send,
        send + "GET / HTTP/1.1\r\nX-Folded: a\r\n b\r\n\r\n",
        send + "GET / HTTP/1.1\nHost: a\n\n",
        "GET / HTTP/1.1\r\nX-Spaces: \t a b \t \r\nX-Empty:\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nX-Lead: \t a\r\nX-Inner: a \t b\r\n\r\n", "GET / HTTP/1.1\r\nX-Trail: a \r\n\r\n",
        "GET / HTTP/1.1\r\nX-Trail: a\t\r\n\r\n", "GET / HTTP/1.1\r\nX-Empty:\r\n\r\n", "GET / HTTP/1.1\r\nX-Empty: \r\n\r\n",
        "GET / HTTP/1.1\r\nX-Late: 1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 0003\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\nabc",
        "GXT / HTTP/1.1\r\n\r\n",
        "MKCOL /dav HTTP/1.1\r\n\r\n",
        "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "CONNECT fcm.googleapis.com:443 HTTP/1.1\r\nHost: fcm.googleapis.com:443\r\n\r\n\u{16}\u{03}\u{01}",
        "GET /caf\u{e9} HTTP/1.1\r\nX-Name: caf\u{e9}\r\n\r\n",
        "GET /a#frag HTTP/1.1\r\n\r\nGET /a|b HTTP/1.1\r\n\r\n",
        "GET / HTTP/2.0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\r\n\r\n",
        "\r\nGET / HTTP/1.1\r\n\r\n",
        "\u{16}\u{03}\u{01}\u{02}\u{00}",
        "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc",
        "GET / HTTP/1.1\r\nHost: a",
        "GET / HTTP/1.1\r\nProxy-Connection: close\r\n\r\nGET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u{01}b\r\n\r\n", "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "GET / HTTP/1.1\r\n\rX\r\n\r\n",
        "GET / HTTP/1.1\r\nX: \u{7f}\u{00}\r\n\r\n", "G\r\n\r\n", "GET / HTTP/1.1\r\nX: 1\r\n\r\r\n",
        "GET / HTTP/1.1\r\nHOST: a\r\nhost: b\r\nContent-type: application/jsoN\r\ncontent-type: application/json\r\n"
            + "User-agent: u\r\nuser-agent: u\r\nAccept: */*\r\naccept-encoding: gzip\r\nConnection: keep-alive\r\n\r\n",
        "GET / HTTP/1.1\r\n" + (0...HTTP1RequestHead.maximumFields).map { "X-\($0): v\r\n" }.joined() + "\r\n",
        "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 20_000) + "\r\n\r\n",
    ]

    @Test(arguments: streams)
    func partsAndErrorsAreLLHTTPsHoweverTheBytesArrive(_ stream: String) {
        let bytes = Array(stream.utf8)
        let cuts: [[ArraySlice<UInt8>]] = [
            [bytes[...]],
            bytes.indices.map { bytes[$0...$0] },
            [bytes[..<(bytes.count / 3)], bytes[(bytes.count / 3)...]],
        ]
        for reads in cuts {
            let (ours, llhttp) = HTTP1DecoderComparison.compare(reads)
            #expect(ours == llhttp, "\(reads.count) reads")
            #expect(!ours.isEmpty)
        }
    }

    @Test func plainRequestsAreReadWithoutLLHTTP() throws {
        let decoder = HTTP1RequestDecoder()
        let channel = EmbeddedChannel(handler: decoder)
        try channel.writeInbound(channel.allocator.buffer(string: Self.send + Self.send))
        #expect(!decoder.isHandedOver)
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        #expect(parts.count == 6)
        guard case .head(let head) = parts.first, case .body(let body) = parts[1] else {
            Issue.record("expected a head and a body: \(parts)")
            return
        }
        #expect(head.method == .POST)
        #expect(head.uri == "/v1/projects/demo/messages:send")
        #expect(head.headers["content-length"] == ["27"])
        #expect(String(buffer: body).hasSuffix(#""news"}"#))
        _ = try channel.finish()
    }

    @Test(arguments: [
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "GET / HTTP/1.1\nHost: a\n\n",
        "GET / HTTP/1.1\r\nX-Folded: a\r\n b\r\n\r\n", "GET / HTTP/1.1\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n",
    ])
    func otherFormsAreHandedToLLHTTPForTheRestOfTheConnection(_ request: String) throws {
        let decoder = HTTP1RequestDecoder()
        let channel = EmbeddedChannel(handler: decoder)
        try channel.writeInbound(channel.allocator.buffer(string: Self.send))
        #expect(!decoder.isHandedOver)
        // Some of them are malformed in llhttp's reading.
        _ = try? channel.writeInbound(channel.allocator.buffer(string: request))
        #expect(decoder.isHandedOver)
        _ = try? channel.finish()
    }

    /// A head that does not end is llhttp's past `maximumBytes`, which refuses it past its own
    /// limit: nothing buffers more than that, and it is not read a second time meanwhile.
    @Test func aHeadThatDoesNotEndIsLLHTTPsPastTheLimit() throws {
        let decoder = HTTP1RequestDecoder()
        let channel = EmbeddedChannel(handler: decoder)
        try channel.writeInbound(channel.allocator.buffer(string: "GET / HTTP/1.1\r\nX-Long: "))
        let piece = String(repeating: "a", count: 1024)
        for _ in 0..<(HTTP1RequestHead.maximumBytes / 1024 - 1) {
            try channel.writeInbound(channel.allocator.buffer(string: piece))
            #expect(!decoder.isHandedOver)
        }
        try channel.writeInbound(channel.allocator.buffer(string: piece))
        #expect(decoder.isHandedOver)
        let rest = channel.allocator.buffer(string: String(repeating: "a", count: 70 * 1024))
        #expect(throws: HTTPParserError.headerOverflow) { try channel.writeInbound(rest) }
    }

    /// The byte sets are bit masks; these are the characters RFC 3986 and RFC 9110 list, and an
    /// HTTP/2 field name's, RFC 9113 §8.2.1's tokens without uppercase letters.
    @Test func targetAndTokenBytesAreTheRFCsCharacters() {
        let alphanumerics = Set(("abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "0123456789").utf8)
        let target = alphanumerics.union("-._~!$&'()*+,;=:@%/?".utf8)
        let token = alphanumerics.union("!#$%&'*+-.^_`|~".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPBytes.isTarget(byte) == target.contains(byte), "\(byte)")
            #expect(HTTPBytes.isToken(byte) == token.contains(byte), "\(byte)")
            #expect(HTTPBytes.isLowercaseToken(byte) == (token.contains(byte) && !(0x41...0x5A).contains(byte)), "\(byte)")
        }
    }

    @Test func scanningResumesWhereItStopped() {
        let head = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        head.withUnsafeBytes { bytes in
            #expect(HTTP1RequestHead.scan(UnsafeRawBufferPointer(rebasing: bytes[..<20]), from: 0) == .incomplete(scanned: 20))
            #expect(HTTP1RequestHead.scan(bytes, from: 20) == .complete(end: head.count))
            // A CR whose LF has not come: the LF is found with it next time.
            #expect(HTTP1RequestHead.scan(UnsafeRawBufferPointer(rebasing: bytes[..<15]), from: 0) == .incomplete(scanned: 15))
            #expect(HTTP1RequestHead.scan(UnsafeRawBufferPointer(rebasing: bytes[..<26]), from: 15) == .incomplete(scanned: 26))
            #expect(HTTP1RequestHead.scan(bytes, from: 26) == .complete(end: head.count))
            #expect(HTTP1RequestHead.scan(UnsafeRawBufferPointer(rebasing: bytes[..<0]), from: 0) == .incomplete(scanned: 0))
            let bareLineFeed = Array("GET / HTTP/1.1\nHost: a".utf8)
            bareLineFeed.withUnsafeBytes { #expect(HTTP1RequestHead.scan($0, from: 0) == .otherForm) }
        }
    }
}
