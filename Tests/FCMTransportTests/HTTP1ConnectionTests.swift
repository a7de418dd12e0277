// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMTesting
@testable import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

/// `HTTP1Connection`: the order, framing and single write of each HTTP/1.1 answer, on an
/// `EmbeddedChannel` with the plain port's pipeline.
@Suite("HTTP/1.1 connection: order, framing, one write an answer")
struct HTTP1ConnectionTests {
    /// The plain pipeline in front of `respond`, which answers every request.
    static func wire(_ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> EmbeddedChannel {
        let responder = HTTPResponder(
            router: Router(unmounted: GoogleFrontEnd.dialect), maxBodyBytes: 1 << 20, handle: respond,
            tooLarge: { _ in HTTPResponse(status: 413) })
        let channel = EmbeddedChannel()
        try HTTPServer.configurePlainHTTP(channel.pipeline.syncOperations, responder: responder, idleTimeout: .seconds(120), logger: .quiet)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    /// Each buffer written, as text, releasing held reads as a socket's next read would.
    static func writes(_ channel: EmbeddedChannel) throws -> [String] {
        channel.embeddedEventLoop.run()
        var writes: [String] = []
        while true {
            var progressed = false
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                writes.append(buffer.readString(length: buffer.readableBytes) ?? "")
                progressed = true
            }
            guard progressed, channel.isActive else { return writes }
            channel.read()
            channel.embeddedEventLoop.run()
        }
    }

    static func send(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
    }

    static let get = "GET /x HTTP/1.1\r\nHost: x\r\n\r\n"

    /// The point of the handler: head and body leave in one write, so one syscall, where NIO's
    /// encoder made two.
    @Test func anAnswerIsOneWrite() throws {
        let channel = try Self.wire { _ in HTTPResponse(status: 200, contentType: "text/plain", body: "hello") }
        try Self.send(channel, Self.get)
        let writes = try Self.writes(channel)
        #expect(writes == ["HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"])
    }

    /// RFC 9110 §10.1.1: a client that asks `Expect: 100-continue` hears `100 Continue` before it
    /// sends the body, then the answer; one whose body is over the limit hears only the 413, and
    /// an HTTP/1.0 client's expectation is ignored.
    @Test func anExpectationOfContinueIsAnsweredBeforeTheBody() throws {
        let channel = try Self.wire { request in HTTPResponse(status: 200, contentType: "text/plain", body: "\(request.body.count)") }
        try Self.send(channel, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-Continue\r\n\r\n")
        #expect(try Self.writes(channel) == ["HTTP/1.1 100 Continue\r\n\r\n"])
        try Self.send(channel, "abc")
        #expect(try Self.writes(channel) == ["HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\n3"])

        let tooLarge = try Self.wire { _ in HTTPResponse(status: 200) }
        try Self.send(tooLarge, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n")
        let refused = try Self.writes(tooLarge).joined()
        #expect(refused.hasPrefix("HTTP/1.1 413 "))
        #expect(!refused.contains("100 Continue"))

        let old = try Self.wire { request in HTTPResponse(status: 200, contentType: "text/plain", body: "\(request.body.count)") }
        try Self.send(old, "POST /x HTTP/1.0\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(try Self.writes(old).isEmpty)
    }

    /// RFC 9112 §9.3.2: answers in the order of the requests, however late the first one is.
    @Test func aRequestBehindADelayedAnswerWaitsForIt() throws {
        let channel = try Self.wire { request in
            var response = HTTPResponse(status: 200, contentType: "text/plain", body: request.path)
            if request.path == "/slow" { response.outcome = .delay(millis: 2000) }
            return response
        }
        try Self.send(channel, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n" + Self.get)
        #expect(try Self.writes(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        let bodies = try Self.writes(channel).map { $0.components(separatedBy: "\r\n\r\n").last ?? "" }
        #expect(bodies == ["/slow", "/x"])
    }

    /// Malformed bytes behind requests whose answers are owed: every request before them is
    /// answered, in order, then the 400 (NIO's pipelining handler kept the error in its place).
    @Test func aMalformedRequestBehindOwedAnswersIsRefusedAfterThem() throws {
        let channel = try Self.wire { request in
            var response = HTTPResponse(status: 200, contentType: "text/plain", body: request.path)
            if request.path == "/slow" { response.outcome = .delay(millis: 1000) }
            return response
        }
        try? Self.send(channel, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n" + Self.get + "GARBAGE\r\n\r\n")
        #expect(try Self.writes(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let writes = try Self.writes(channel).joined()
        #expect(writes.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(writes.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 2)
        #expect(writes.hasSuffix("/slow" + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n/x"
            + "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
        #expect(!channel.isActive)
    }

    /// RFC 9112 §9.6: after an answer that says `Connection: close`, no request is run, since
    /// its answer would never be read (a client retries it elsewhere: a send would happen twice).
    @Test func noRequestAfterAClosingAnswerIsRun() throws {
        let calls = Calls()
        let channel = try Self.wire { request in
            calls.add(request.path)
            var response = HTTPResponse(status: 200, contentType: "text/plain", body: "ok")
            if request.path == "/last" { response.outcome = .writeThenClose }
            return response
        }
        try Self.send(channel, "GET /last HTTP/1.1\r\nHost: x\r\n\r\n" + "POST /send HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let answer = try Self.writes(channel).joined()
        #expect(answer.contains("Connection: close\r\n"))
        #expect(calls.paths == ["/last"])
        #expect(!channel.isActive)
    }

    /// A shutdown while a request's body is still arriving: it is read to its end and answered.
    @Test func aQuiescedConnectionReadsTheRequestItIsReceiving() throws {
        let channel = try Self.wire { request in HTTPResponse(status: 200, contentType: "text/plain", body: "\(request.body.count)") }
        let reads = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(reads, position: .first)
        try Self.send(channel, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nabc")
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let before = reads.count
        channel.read()
        #expect(reads.count == before + 1, "the rest of the body is read")
        try Self.send(channel, "def")
        let answer = try Self.writes(channel).joined()
        #expect(answer.hasSuffix("connection: close\r\n\r\n6"))
        #expect(!channel.isActive)
    }

    /// Outcomes HTTP/1.1 has no frame for: a graceful GOAWAY is an answer that closes, an error
    /// GOAWAY or a stream reset drops the connection unanswered, as an injected reset does.
    @Test func anHTTP2OutcomeIsWhatHTTP1CanDo() throws {
        let outcomes: [(HTTPResponse.Outcome, String)] = [
            (.goAway(GoAway(errorCode: 0)), "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"),
            (.goAway(GoAway(errorCode: 11)), ""), (.resetStream(7), ""), (.reset, ""),
        ]
        for (outcome, expected) in outcomes {
            let channel = try Self.wire { _ in
                var response = HTTPResponse(status: 200, contentType: "text/plain", body: "ok")
                response.outcome = outcome
                return response
            }
            try Self.send(channel, Self.get + Self.get)
            #expect(try Self.writes(channel).joined() == expected, "\(outcome)")
            #expect(!channel.isActive, "\(outcome)")
        }
    }

    /// RFC 9110 §5.5: a value with CR or LF could end the head and start an answer of its own;
    /// such a header is never written, nor a name that is not a token.
    @Test func aHeaderThatCouldSplitTheAnswerIsNeverWritten() throws {
        let channel = try Self.wire { _ in
            HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nSet-Cookie: taken"), ("Bad Name", "v"), ("X-Good", "1")], body: [])
        }
        try Self.send(channel, Self.get)
        let answer = try Self.writes(channel).joined()
        #expect(answer == "HTTP/1.1 200 OK\r\nX-Good: 1\r\nContent-Length: 0\r\n\r\n")
    }

    /// RFC 9112 §6.3: a 204 has no body and no length; the next request is read as one.
    @Test func aNoContentAnswerHasNoLength() throws {
        let channel = try Self.wire { request in
            request.path == "/x" ? HTTPResponse(status: 204) : HTTPResponse(status: 200, contentType: "text/plain", body: "ok")
        }
        try Self.send(channel, Self.get + "GET /y HTTP/1.1\r\nHost: x\r\n\r\n")
        let writes = try Self.writes(channel)
        #expect(writes == ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"])
    }

    /// RFC 9110 §9.3.6 bars a body only from a 2xx answer to CONNECT: the plain port's refusal
    /// keeps its explanation and its length, and the connection closes (the decoder reads no
    /// request after a CONNECT).
    @Test func aRefusedConnectKeepsItsExplanationAndCloses() throws {
        let channel = try Self.wire { _ in HTTPResponse(status: 405, contentType: "text/plain", body: "not a proxy") }
        try Self.send(channel, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let answer = try Self.writes(channel).joined()
        #expect(answer.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(answer.contains("Content-Length: 11\r\n"))
        #expect(answer.hasSuffix("\r\n\r\nnot a proxy"))
        #expect(!channel.isActive)
    }

    /// Shutdown: a connection waiting on an answer gets it, saying `connection: close`, and is
    /// closed; one with nothing owed is closed at once.
    @Test func aQuiescedConnectionClosesAfterItsAnswer() throws {
        let channel = try Self.wire { _ in
            var response = HTTPResponse(status: 200, contentType: "text/plain", body: "last")
            response.outcome = .delay(millis: 1000)
            return response
        }
        try Self.send(channel, Self.get)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let answer = try Self.writes(channel).joined()
        #expect(answer.contains("connection: close\r\n"))  // as NIO wrote it
        #expect(answer.hasSuffix("last"))
        #expect(!channel.isActive)

        let idle = try Self.wire { _ in HTTPResponse(status: 200) }
        idle.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!idle.isActive)
    }

    /// The connection hands the request handler right behind it its parts directly, and stops
    /// once that handler leaves the pipeline: from then on they go through the pipeline to
    /// whatever is behind.
    @Test func partsReachWhateverIsBehindOnceTheRequestHandlerLeaves() throws {
        let channel = try Self.wire { _ in HTTPResponse(status: 200, contentType: "text/plain", body: "ok") }
        let behind = PartRecorder()
        try channel.pipeline.syncOperations.addHandler(behind)
        try Self.send(channel, Self.get)
        #expect(try Self.writes(channel).joined().hasSuffix("\r\n\r\nok"))
        #expect(behind.uris.isEmpty)

        _ = try channel.pipeline.syncOperations.removeHandler(name: ProxyRequestHandler.Names.routes).wait()
        try Self.send(channel, "GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(behind.uris == ["/after"])
        #expect(try Self.writes(channel).isEmpty)
    }

    /// The decoder hands the connection its parts directly, and, once the connection has left,
    /// whatever stands behind the decoder gets them.
    @Test func partsReachWhateverIsBehindOnceTheConnectionLeaves() throws {
        let channel = try Self.wire { _ in HTTPResponse(status: 200, contentType: "text/plain", body: "ok") }
        let behind = PartRecorder()
        try channel.pipeline.syncOperations.addHandler(behind)
        _ = try channel.pipeline.syncOperations.removeHandler(name: ProxyRequestHandler.Names.routes).wait()
        _ = try channel.pipeline.syncOperations.removeHandler(name: ProxyRequestHandler.Names.connection).wait()
        try Self.send(channel, "GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(behind.uris == ["/after"])
        #expect(try Self.writes(channel).isEmpty)
    }
}

/// The heads of the requests that reach it.
private final class PartRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    var uris: [String] = []
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { uris.append(head.uri) }
    }
}

/// The paths a responder was called with.
private final class Calls: Sendable {
    private let paths_ = Mutex<[String]>([])
    func add(_ path: String) { paths_.withLock { $0.append(path) } }
    var paths: [String] { paths_.withLock { $0 } }
}

/// Counts the reads that get through to the socket.
private final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    var count = 0
    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
