// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import FCMTesting
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTP2
import Testing

/// HTTP/2 answers the peer's flow control keeps (HTTP2HeldAnswers.swift; docs/limits.md): a
/// client that never opens its window gets no more than the limit held for it, and is let go.
@Suite("HTTP/2 back pressure", .timeLimit(.minutes(1)))
struct HTTP2BackPressureTests {
    /// Each `/big` answer: the limit is reached after `maxHeldBytes / answerBytes` of them.
    static let answerBytes = 256 << 10
    static let ping = RawHTTP2Client.frame(type: 0x6, flags: 0, stream: 0, payload: Array(repeating: 7, count: 8))
    /// SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113 §6.5.2).
    static let initialWindowSize: UInt16 = 0x4

    /// 100 streams for `/big` with SETTINGS_INITIAL_WINDOW_SIZE 0: the server answers until it
    /// holds the limit, then answers no more (the requests wait) while still reading, so the
    /// WINDOW_UPDATEs that open a window are heard: one answer drains, and one request that
    /// waited is answered in its place, and no other.
    @Test func aClientWithItsWindowShutGetsNoMoreThanTheLimitHeld() async throws {
        try await withHTTPSServer { port, gauge in
            var requests: [UInt8] = []
            for n in 0..<100 { requests += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/big") }
            let client = try await RawHTTP2Client.connect(port: port, settings: [(Self.initialWindowSize, 0)], then: requests)
            await gauge.reaches(HTTP2Connection.maxHeldBytes)
            var events = client.events.makeAsyncIterator()
            var begun: [UInt32] = []
            var ended = Set<UInt32>()
            var bodyBytes = 0
            // Two PINGs in turn: the second is read after every frame before it was handed on,
            // so its ACK comes after each answer begun (HEADERS) for the requests before it.
            func readToPingAcks() async throws {
                for _ in 0..<2 {
                    try await client.send(Self.ping)
                    while case .frame(let type, let flags, let stream, let payload)? = await events.next(), !(type == 0x6 && flags & 0x1 == 1) {
                        if type == 0x1 { begun.append(stream) }
                        if type == 0x0 { bodyBytes += payload.count }
                        if type == 0x0 || type == 0x1, flags & 0x1 == 1 { ended.insert(stream) }
                    }
                }
            }
            try await readToPingAcks()
            let held = HTTP2Connection.maxHeldBytes / Self.answerBytes
            let firstStreams: [UInt32] = (0..<held).map { UInt32(2 * $0 + 1) }
            #expect(begun == firstStreams)
            #expect(gauge.peak <= HTTP2Connection.maxHeldBytes + Self.answerBytes)
            // Stream 1's window (and the connection's) opens for its answer, which leaves; a request
            // that waited is answered in its place (NIO hands a read's requests to their streams
            // in an order of its own, so which one is not said).
            let increment = withUnsafeBytes(of: UInt32(Self.answerBytes).bigEndian, Array.init)
            try await client.send(
                RawHTTP2Client.frame(type: 0x8, flags: 0, stream: 1, payload: increment)
                    + RawHTTP2Client.frame(type: 0x8, flags: 0, stream: 0, payload: increment))
            while !ended.contains(1) || begun.count == held, case .frame(let type, let flags, let stream, let payload)? = await events.next() {
                if type == 0x1 { begun.append(stream) }
                if type == 0x0 { bodyBytes += payload.count }
                if type == 0x0 || type == 0x1, flags & 0x1 == 1 { ended.insert(stream) }
            }
            try await readToPingAcks()
            #expect(ended == [1])
            #expect(bodyBytes == Self.answerBytes)
            let next = Array(begun.dropFirst(held))
            #expect(next.count == 1 && next.allSatisfy { !firstStreams.contains($0) }, "\(next)")
            #expect(gauge.peak <= HTTP2Connection.maxHeldBytes + Self.answerBytes)
            try? await client.channel.close()
        }
    }

    /// A client that asks past the limit, never opens its window and sends nothing more makes no
    /// progress either way: its connection closes after one idle timeout or two, after a GOAWAY
    /// naming the last stream it opened (NO_ERROR from the idle timeout, or the held answers'
    /// own look below, whichever looks first).
    @Test func aClientWhoseWindowStaysShutIsLetGoAtTheIdleTimeout() async throws {
        try await withHTTPSServer(idle: HTTPSIdleTests.idle) { port, gauge in
            var requests: [UInt8] = []
            for n in 0..<80 { requests += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/big") }
            let client = try await RawHTTP2Client.connect(port: port, settings: [(Self.initialWindowSize, 0)], then: requests)
            await gauge.reaches(HTTP2Connection.maxHeldBytes)
            let (goAway, closed) = await client.goAwayAndEnd()
            #expect(goAway?.lastStreamID == 159)
            #expect(closed)
        }
    }

    /// A client that keeps its window shut but keeps sending frames the server reads (a PING now
    /// and then, WINDOW_UPDATEs on the connection) makes progress to `IdleTimeoutHandler`: the
    /// held answers' own look lets it go when nothing drained for a whole idle timeout. On an
    /// embedded loop, whose time the test moves: a stream's DATA that never reaches the socket
    /// (its write not flushed) holds the limit.
    @Test func heldAnswersThatNeverDrainEndTheConnectionThoughItIsRead() throws {
        let loop = EmbeddedEventLoop()
        let idle = TimeAmount.seconds(120)
        let connection = HTTP2Connection(idleTimeout: idle, logger: .quiet)
        let wire = EmbeddedChannel(handler: connection.events, loop: loop)
        try wire.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let stream = EmbeddedChannel(handler: HTTP2StreamCodec(connection: connection, stream: 1), loop: loop)
        let answer = ByteBuffer(repeating: 0, count: HTTP2Connection.maxHeldBytes)
        stream.write(HTTPServerResponsePart.body(.byteBuffer(answer)), promise: nil)
        #expect(!connection.hasRoomForAnswers)
        // Something drains in the first timeout (another stream's answer leaves): kept.
        let other = EmbeddedChannel(handler: HTTP2StreamCodec(connection: connection, stream: 3), loop: loop)
        other.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(repeating: 0, count: 1))), promise: nil)
        loop.advanceTime(by: idle)
        #expect(wire.isActive)
        // Nothing drains in the next: GOAWAY ENHANCE_YOUR_CALM, then the close.
        loop.advanceTime(by: idle)
        let goAway = try #require(try wire.readOutbound(as: HTTP2Frame.self))
        guard case .goAway(_, let code, let data) = goAway.payload else {
            Issue.record("not a GOAWAY: \(goAway)")
            return
        }
        #expect(code == .enhanceYourCalm)
        #expect(data.map { String(buffer: $0) } == HTTP2Connection.windowShutDebugData)
        #expect(!wire.isActive)
        _ = try? stream.finish()
        _ = try? other.finish()
    }
}
