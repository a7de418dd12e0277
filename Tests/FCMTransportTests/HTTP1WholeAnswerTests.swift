// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMTesting
@testable import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// `HTTP1Connection.writeAnswer`: an answer handed over whole is the same bytes as the same
/// answer written as head, body and end parts, which a request handler without the link to its
/// connection still writes.
@Suite("HTTP/1.1 whole answers: the bytes of the parts")
struct HTTP1WholeAnswerTests {
    /// The plain port's HTTP/1.1 handlers in front of `respond`; `linked`: the request handler
    /// hands its answers to the connection whole, as `HTTPServer.addHTTP1` links them.
    static func wire(linked: Bool, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> EmbeddedChannel {
        let responder = HTTPResponder(
            router: Router(unmounted: GoogleFrontEnd.dialect), maxBodyBytes: 64, handle: respond,
            tooLarge: { _ in HTTPResponse(status: 413, contentType: "text/plain", body: "too large") })
        let channel = EmbeddedChannel()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
        let connection = HTTP1Connection()
        try sync.addHandler(connection)
        let handler = HTTPRequestHandler(responder: responder, logger: .quiet)
        if linked { handler.http1 = connection }
        try sync.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    /// What the connection writes for `requests`, and whether it is still open.
    static func answers(
        linked: Bool, _ requests: String, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws -> (writes: [String], open: Bool) {
        let channel = try wire(linked: linked, respond)
        _ = try? channel.writeInbound(channel.allocator.buffer(string: requests))
        let writes = try HTTP1ConnectionTests.writes(channel)
        return (writes, channel.isActive)
    }

    static let answers: [(String, HTTPResponse)] = [
        ("plain", HTTPResponse(status: 200, contentType: "text/plain", body: "hello")),
        ("empty", HTTPResponse(status: 200)),
        ("no content", HTTPResponse(status: 204, headers: [("Content-Length", "9"), ("X-A", "1")])),
        ("not modified", HTTPResponse(status: 304, headers: [("ETag", "\"1\"")], body: Array("ignored".utf8))),
        ("its own length", HTTPResponse(status: 200, headers: [("content-length", "99"), ("X-B", "2")], body: Array("abc".utf8))),
        ("framing", HTTPResponse(status: 200, headers: [("Transfer-Encoding", "chunked"), ("X-C", "3")], body: Array("abc".utf8))),
        ("keep-alive", HTTPResponse(status: 200, headers: [("Connection", "keep-alive")], body: Array("k".utf8))),
        ("says close", HTTPResponse(status: 200, headers: [("connection", "Close")], body: Array("c".utf8))),
        ("unwritable", HTTPResponse(status: 200, headers: [("Bad Name", "1"), ("X-D", "a\r\nb"), ("", "e"), ("X-E", "\tok")])),
        ("unknown status", HTTPResponse(status: 299, contentType: "text/plain", body: "odd")),
        ("teapot", HTTPResponse(status: 418)),
        ("big", HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array(repeating: 0x61, count: 100_000))),
        ("many fields", HTTPResponse(status: 500, headers: (0..<40).map { ("X-Field-\($0)", String(repeating: "v", count: $0)) })),
    ]

    static let requests = [
        "GET /x HTTP/1.1\r\nHost: x\r\n\r\n",
        "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /x HTTP/1.0\r\n\r\n",
        "GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\n\r\nGET /y HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /y HTTP/1.1\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\n\r\nnot http\r\n\r\n",
    ]

    @Test(arguments: answers.indices)
    func wholeIsTheParts(_ index: Int) throws {
        let response = Self.answers[index].1
        for request in Self.requests {
            let parts = try Self.answers(linked: false, request) { _ in response }
            let whole = try Self.answers(linked: true, request) { _ in response }
            #expect(whole.writes == parts.writes, "\(Self.answers[index].0), \(request.debugDescription)")
            #expect(whole.open == parts.open, "\(Self.answers[index].0), \(request.debugDescription)")
        }
    }

    /// The server's own link, on the plain port's pipeline: a send's answer is one write.
    @Test func thePlainPortIsLinked() throws {
        let channel = try HTTP1ConnectionTests.wire { _ in HTTPResponse(status: 200, contentType: "text/plain", body: "hi") }
        let handler = try channel.pipeline.syncOperations.handler(type: HTTPRequestHandler.self)
        #expect(handler.http1 != nil)
        try HTTP1ConnectionTests.send(channel, HTTP1ConnectionTests.get)
        #expect(try HTTP1ConnectionTests.writes(channel) == ["HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"])
    }
}

/// The field check of a whole answer's head, byte by byte against RFC 9110's rule written plainly.
@Suite("HTTP/1.1 answer fields: what may be written")
struct HTTP1FieldCheckTests {
    static let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    @Test func everyByteOfANameOrAValueIsJudgedByTheRule() {
        for byte in UInt8.min...UInt8.max {
            let text = String(decoding: [UInt8(ascii: "a"), byte, UInt8(ascii: "z")], as: UTF8.self)
            // A byte past ASCII alone is not UTF-8: the string holds U+FFFD's bytes, none a tchar.
            let bytes = Array(text.utf8)
            let token = bytes.allSatisfy(Self.tchars.contains)
            let value = bytes.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }
            #expect(HTTP1Connection.isWritable(text, "v") == token, "name byte \(byte)")
            #expect(HTTP1Connection.isWritable("X-Name", text) == value, "value byte \(byte)")
        }
        #expect(!HTTP1Connection.isWritable("", "v"))
        #expect(HTTP1Connection.isWritable("X", ""))
        #expect(HTTP1Connection.isWritable("Content-Type", "application/json; charset=UTF-8 \u{E9}\t\u{1F600}"))
        #expect(!HTTP1Connection.isWritable("X", "a\r\nSet-Cookie: x"))
    }
}
