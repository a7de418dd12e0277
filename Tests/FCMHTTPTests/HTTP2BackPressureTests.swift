// SPDX-License-Identifier: Apache-2.0

import FCMTesting
@testable import FCMTransport
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// HTTP/2 answers the peer's flow control keeps (HTTP2HeldAnswers.swift; docs/limits.md): a
/// client that never opens its window gets no more than the limit held for it, and is let go by
/// the idle timeout; an idle HTTP/2 connection closes as an HTTP/1.1 one does.
@Suite("HTTP/2 back pressure and idle connections", .timeLimit(.minutes(1)))
struct HTTP2BackPressureTests {
    /// Each `/big` answer: the limit is reached after `maxHeldBytes / answerBytes` of them.
    static let answerBytes = 512 << 10
    static let ping = RawHTTP2Client.frame(type: 0x6, flags: 0, stream: 0, payload: Array(repeating: 7, count: 8))
    /// SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113 §6.5.2).
    static let initialWindowSize: UInt16 = 0x4

    /// 100 streams for `/big` with SETTINGS_INITIAL_WINDOW_SIZE 0: the server answers until it
    /// holds the limit, then answers no more (the requests wait) while still reading, so the
    /// WINDOW_UPDATEs that open the window are heard and every stream is answered in the end.
    @Test func aClientWithItsWindowShutGetsNoMoreThanTheLimitHeld() async throws {
        try await withServer { port, gauge in
            let client = try await RawHTTP2Client.connect(port: port, settings: [(Self.initialWindowSize, 0)])
            var requests: [UInt8] = []
            for n in 0..<100 { requests += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/big") }
            try await client.send(requests)
            await gauge.reaches(HTTP2Connection.maxHeldBytes)
            // Two PINGs in turn: the second is read after every request before it was handed to
            // its stream, so its ACK comes after each answer begun (HEADERS) for them.
            var events = client.events.makeAsyncIterator()
            var begun = Set<UInt32>()
            for _ in 0..<2 {
                try await client.send(Self.ping)
                while case .frame(let type, let flags, let stream, _)? = await events.next(), !(type == 0x6 && flags & 0x1 == 1) {
                    if type == 0x1 { begun.insert(stream) }
                }
            }
            #expect(begun.count == HTTP2Connection.maxHeldBytes / Self.answerBytes)
            #expect(gauge.peak <= HTTP2Connection.maxHeldBytes + Self.answerBytes)
            // The window opens: every stream is answered, the held bytes never past the bound.
            let maxWindow: UInt32 = 0x7fff_ffff
            try await client.send(
                RawHTTP2Client.frame(type: 0x4, flags: 0, stream: 0, payload: [0, 0x4] + withUnsafeBytes(of: maxWindow.bigEndian, Array.init))
                    + RawHTTP2Client.frame(
                        type: 0x8, flags: 0, stream: 0, payload: withUnsafeBytes(of: (maxWindow - 65535).bigEndian, Array.init)))
            var ended = Set<UInt32>()
            var bodyBytes = 0
            while ended.count < 100, case .frame(let type, let flags, let stream, let payload)? = await events.next() {
                if type == 0x0 { bodyBytes += payload.count }
                if type == 0x0 || type == 0x1, flags & 0x1 == 1 { ended.insert(stream) }
            }
            #expect(ended.count == 100)
            #expect(bodyBytes == 100 * Self.answerBytes)
            #expect(gauge.peak <= HTTP2Connection.maxHeldBytes + Self.answerBytes)
            try? await client.channel.close()
        }
    }

    /// A client that asks past the limit, never opens its window and sends nothing more makes no
    /// progress either way: its connection closes after one idle timeout or two, after a GOAWAY
    /// naming the last stream it opened (NO_ERROR from the idle timeout, or the held answers'
    /// own look below, whichever looks first).
    @Test func aClientWhoseWindowStaysShutIsLetGoAtTheIdleTimeout() async throws {
        try await withServer(idle: .milliseconds(200)) { port, gauge in
            let client = try await RawHTTP2Client.connect(port: port, settings: [(Self.initialWindowSize, 0)])
            var requests: [UInt8] = []
            for n in 0..<40 { requests += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/big") }
            try await client.send(requests)
            await gauge.reaches(HTTP2Connection.maxHeldBytes)
            let (goAway, closed) = await Self.goAwayAndEnd(client)
            #expect(goAway?.lastStreamID == 79)
            #expect(closed)
        }
    }

    /// The same client keeping its connection busy with frames the server reads (WINDOW_UPDATEs
    /// of one byte on the connection, which NIO's DoS heuristics do not count, where PINGs past
    /// 200 in 30 s are refused): reads count as progress to the idle timeout, but held answers
    /// that do not drain for a whole timeout end the connection.
    @Test func aClientWhoseWindowStaysShutIsLetGoThoughItKeepsSending() async throws {
        try await withServer(idle: .milliseconds(200)) { port, gauge in
            let client = try await RawHTTP2Client.connect(port: port, settings: [(Self.initialWindowSize, 0)])
            var requests: [UInt8] = []
            for n in 0..<40 { requests += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/big") }
            try await client.send(requests)
            await gauge.reaches(HTTP2Connection.maxHeldBytes)
            let nudge = RawHTTP2Client.frame(type: 0x8, flags: 0, stream: 0, payload: [0, 0, 0, 1])
            var sent = 0
            // Seconds of sending, should the server never let go (it does within two timeouts,
            // some 1,000 to 4,000 frames on).
            let bound = 50_000
            while client.channel.isActive, sent < bound {
                try? await client.send(nudge)
                sent += 1
            }
            #expect(sent < bound, "the connection was kept while the client kept sending")
            let (goAway, closed) = await Self.goAwayAndEnd(client)
            // Held answers that did not drain (ENHANCE_YOUR_CALM flow_control_window_shut); the
            // idle timeout's NO_ERROR only if this client was starved of the CPU for a timeout.
            #expect(goAway?.lastStreamID == 79, "\(String(describing: goAway))")
            #expect(closed)
        }
    }

    /// An HTTP/2 connection with nothing to do is closed at the idle timeout, as an HTTP/1.1 one
    /// is: NIO's multiplexer hands the timeout to no stream, so the connection acts on it.
    @Test func anIdleHTTP2ConnectionIsClosed() async throws {
        try await withServer(idle: .milliseconds(200)) { port, _ in
            let client = try await RawHTTP2Client.connect(port: port)
            let (goAway, closed) = await Self.goAwayAndEnd(client)
            #expect(goAway == .init(lastStreamID: 0, errorCode: 0, debugData: ""))
            #expect(closed)
        }
    }

    /// A wait (`waitFor`) writes nothing until it ends: its connection is kept past the idle
    /// timeout, as over HTTP/1.1, and the answer comes at the wait's own timeout.
    @Test func aWaitKeepsItsConnectionPastTheIdleTimeout() async throws {
        try await withServer(idle: .milliseconds(200), responder: InProcess().responder) { port, _ in
            let client = try await RawHTTP2Client.connect(port: port)
            try await client.send(
                RawHTTP2Client.get(
                    stream: 1, path: "/emulator/v1/projects/demo-fcm-emu/events?kind=delivered&waitFor=1&timeout=1s",
                    extra: [("authorization", "Bearer owner")]))
            var answer: [UInt8]?
            events: for await event in client.events {
                switch event {
                case .frame(0x1, _, 1, let block):
                    answer = block
                    break events
                case .frame(0x7, _, _, _), .closed: break events
                case .frame: continue
                }
            }
            #expect(answer?.first == 0x88, ":status 200, HPACK's static entry 8, before any GOAWAY")
            try? await client.channel.close()
        }
    }

    /// The server's GOAWAY, if it sends one, and whether the connection then ended.
    static func goAwayAndEnd(_ client: RawHTTP2Client) async -> (RawHTTP2Client.GoAway?, closed: Bool) {
        var goAway: RawHTTP2Client.GoAway?
        for await event in client.events {
            switch event {
            case .frame(0x7, _, _, let payload): goAway = RawHTTP2Client.goAway(payload)
            case .frame: continue
            case .closed: return (goAway, true)
            }
        }
        return (goAway, false)
    }

    /// An HTTPS listener as `HTTPServer.start` builds one (the floor, then `configureHTTPS`), in
    /// front of `responder`, by default one route that answers `answerBytes` of zeros; each
    /// HTTP/2 connection tells `gauge` what it holds.
    private func withServer(
        idle: TimeAmount = .seconds(120), responder: HTTPResponder? = nil, _ body: (_ port: Int, HeldGauge) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-emu-h2-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (tls, _) = try TLSFiles.serverContext(directory: directory, alpn: ["h2", "http/1.1"])
        var router = Router(
            unmounted: Dialect(
                notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
                refused: { HTTPResponse(status: $0.status) }))
        router.add("GET", "/big") { _, _ in HTTPResponse(status: 200, headers: [], body: [UInt8](repeating: 0, count: Self.answerBytes)) }
        let responder = responder ?? HTTPResponder(router: router, maxBodyBytes: 1024) { _ in HTTPResponse(status: 413) }
        let gauge = HeldGauge()
        let floor = ConnectionFloor(idle: .bothWays(idle), tls: tls, logger: .quiet)
        let listener = try await Listener.bind(host: "127.0.0.1", port: 0, group: MultiThreadedEventLoopGroup.singleton, floor: floor) {
            channel in
            let connection = HTTP2Connection(idleTimeout: idle, logger: .quiet)
            connection.onHeldBytes = { gauge.note($0) }
            return HTTPServer.configureHTTPS(channel, connection: connection, responder: responder, logger: .quiet)
        }
        do {
            try await body(listener.port, gauge)
        } catch {
            await listener.close()
            throw error
        }
        await listener.close()
    }
}

/// What the server's HTTP/2 connections hold, as `HTTP2Connection.onHeldBytes` tells it.
final class HeldGauge: Sendable {
    private let state = Mutex<(now: Int, peak: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, 0, []))

    var peak: Int { state.withLock { $0.peak } }

    func note(_ bytes: Int) {
        let ready = state.withLock { state in
            state.now = bytes
            state.peak = max(state.peak, bytes)
            let ready = state.waiters.filter { bytes >= $0.0 }
            state.waiters.removeAll { bytes >= $0.0 }
            return ready
        }
        for (_, continuation) in ready { continuation.resume() }
    }

    /// Returns once the bytes held have reached `bytes`.
    func reaches(_ bytes: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.now < bytes { state.waiters.append((bytes, continuation)) }
                return state.now
            }
            if now >= bytes { continuation.resume() }
        }
    }
}
