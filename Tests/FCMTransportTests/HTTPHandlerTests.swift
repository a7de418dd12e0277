// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMTesting
@testable import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The HTTP/1.1 pipeline on an `EmbeddedChannel`: bytes in, bytes out, the clock moved by hand.
@Suite("HTTP/1.1 handler, without sockets")
struct HTTPHandlerTests {
    struct Wire {
        let channel = EmbeddedChannel()
        let api: InProcess

        init(emulator: Emulator = Emulator(), logger: Logger = .quiet) throws {
            api = InProcess(emulator)
            try HTTPServer.configurePlainHTTP(
                channel.pipeline.syncOperations, responder: api.responder, idleTimeout: .seconds(120), logger: logger)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        }

        func send(_ text: String) throws {
            try channel.writeInbound(channel.allocator.buffer(string: text))
        }

        /// Everything written back so far, as text. Each `read()` lets the pipelining handler
        /// release the next request it held, as the socket's next read would.
        func received() throws -> String {
            // Tasks other threads queued (a stream or a wait woken by the emulator) run first.
            channel.embeddedEventLoop.run()
            var text = ""
            while true {
                var progressed = false
                while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                    text += buffer.readString(length: buffer.readableBytes) ?? ""
                    progressed = true
                }
                guard progressed, channel.isActive else { return text }
                channel.read()
                channel.embeddedEventLoop.run()
            }
        }
    }

    @Test func answersARequestWithItsStatusHeadersAndBody() throws {
        let wire = try Wire()
        try wire.send("GET /emulator/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try wire.received()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains("Content-Length: 21\r\n"))
        #expect(answer.contains("\r\n\r\n{\n  \"status\": \"ok\"\n}"))
        #expect(wire.channel.isActive)
    }

    /// HEAD answers with the headers a GET would get, its Content-Length included, and no body;
    /// the next request on the connection is read as a request, not as leftover body.
    @Test func headHasTheGetsLengthAndNoBody() throws {
        let wire = try Wire()
        try wire.send("HEAD /emulator/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /emulator/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try wire.received()
        let parts = answer.components(separatedBy: "HTTP/1.1 200 OK\r\n")
        #expect(parts.count == 3)
        #expect(parts[1].hasSuffix("Content-Length: 21\r\n\r\n"))
        #expect(parts[2].contains("Content-Length: 21\r\n\r\n{\n  \"status\": \"ok\"\n}"))
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let wire = try Wire()
        let request = { (path: String) in "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n" }
        try wire.send(request("/emulator/v1/health") + request("/emulator/v1/nope") + request("/emulator/v1/health"))
        // Bodies end without a line break, so a status line may follow one directly.
        let statuses = try wire.received().components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["200", "404", "200"])
    }

    /// A client that pipelines and never reads grew the server to gigabytes.
    /// While the channel is not writable, answers wait and nothing more is read.
    @Test func nothingIsAnsweredOrReadWhileTheChannelCannotWrite() throws {
        let wire = try Wire()
        wire.channel.isWritable = false
        wire.channel.pipeline.fireChannelWritabilityChanged()
        let request = "GET /emulator/v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
        try wire.send(request + request)
        #expect(try wire.received().isEmpty)
        wire.channel.isWritable = true
        wire.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try wire.received().components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 2)
    }

    /// An access line per request at info, with the API, path, status, time and project.
    @Test func eachAnswerIsOneAccessLogLine() throws {
        let capture = LogCapture()
        let wire = try Wire(logger: capture.logger(level: .info))
        let body = #"{"message":{"topic":"news"}}"#
        try wire.send(
            "POST /v1/projects/demo-fcm-emu/messages:send?alt=json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        _ = try wire.received()
        let line = try #require(capture.logged.first)
        #expect(capture.logged.count == 1)
        #expect(line.level == .info)
        #expect(line.message == "POST /v1/projects/demo-fcm-emu/messages:send 200")
        #expect(line.metadata["api"] == "v1")
        #expect(line.metadata["project"] == "demo-fcm-emu")
        #expect(line.metadata["status"] == "200")
        #expect(line.metadata["ms"] != nil)
    }

    @Test func keepAliveRequestsAreAnsweredInTurn() throws {
        let wire = try Wire()
        var statuses: [String] = []
        for path in ["/emulator/v1/health", "/emulator/v1/nope", "/emulator/v1/health"] {
            try wire.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            statuses += try wire.received().components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        }
        #expect(statuses == ["HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"])
        #expect(wire.channel.isActive)
    }

    @Test func malformedRequestIs400AndCloses() throws {
        let wire = try Wire()
        try? wire.send("GARBAGE\r\n\r\n")
        #expect(try wire.received().hasPrefix("HTTP/1.1 400 Bad Request"))
        #expect(!wire.channel.isActive)
    }

    @Test func declaredOversizeBodyIsRefusedBeforeItArrives() throws {
        let wire = try Wire()
        try wire.send("POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\nab")
        let answer = try wire.received()
        #expect(answer.hasPrefix("HTTP/1.1 413 "))
        #expect(answer.contains("Connection: close"))
        #expect(!wire.channel.isActive)
    }

    @Test func injectedLatencyWaitsItsWallEquivalent() throws {
        let emulator = Emulator(clock: .wall(wallMillis: { 0 }))
        try emulator.addFaultRule(FaultRule(id: "slow", match: .init(api: .v1), action: .latency(millis: 3000)))
        let wire = try Wire(emulator: emulator)
        let body = #"{"message":{"topic":"news"}}"#
        try wire.send(
            "POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer"
                + " x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        #expect(try wire.received().isEmpty)
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(try wire.received().hasPrefix("HTTP/1.1 200 OK"))
    }

    /// A clock slowed to 1e-16 turned a latency into an Int64 overflow trap.
    @Test func aTinyClockSpeedClampsTheWallDelay() {
        #expect(HTTPRequestHandler.wallDelay(emulatorMillis: 3000, speed: 1e-16) == HTTPRequestHandler.maxWallDelayMillis)
        #expect(HTTPRequestHandler.wallDelay(emulatorMillis: .max, speed: 1) == HTTPRequestHandler.maxWallDelayMillis)
        #expect(HTTPRequestHandler.wallDelay(emulatorMillis: 3000, speed: 2) == 1500)
        #expect(HTTPRequestHandler.wallDelay(emulatorMillis: 3000, speed: 0) == 0)
    }
}
