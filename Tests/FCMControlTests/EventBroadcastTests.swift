// SPDX-License-Identifier: Apache-2.0

@testable import FCMControl
@testable import FCMCore
@testable import FCMHTTP
import FCMJSON
@testable import FCMServer
import FCMTesting
@testable import FCMTransport
import Foundation
import NIOEmbedded
import Synchronization
import Testing

/// Streams share one read of the log per batch of events (`EventBroadcast`),
/// filter it themselves, and a subscriber that does not read is sent a bounded amount.
@Suite("Event streams share one read of the log")
struct EventBroadcastTests {
    static let demo = EventStreamTests.demo

    static func reads(_ api: InProcess) -> Int { api.events.broadcast(for: api.emulator).logReads.load(ordering: .relaxed) }

    static func kinds(_ body: StreamingBody) throws -> [String] {
        try EventStreamTests.events(EventStreamTests.read(body)).compactMap { $0.string("kind") }
    }

    /// 200 streams and a send: a couple of reads of the log under the world's lock, not 200.
    @Test func aSendWithManyStreamsOpenReadsTheLogAFewTimes() throws {
        let api = InProcess()
        let device = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        let token = try #require(device.string("token"))
        let bodies = try (0..<200).map { _ in try EventStreamTests.stream(api, "/emulator/v1/events:stream").1 }
        // Each stream's first read places it in the log (its generation); after that, the window.
        try EventStreamTests.sendData(api, token: token)
        for body in bodies { _ = EventStreamTests.read(body) }
        for round in 0..<5 {
            let before = Self.reads(api)
            try EventStreamTests.sendData(api, token: token)
            for body in bodies { #expect(try Self.kinds(body) == ["accepted", "delivered"], "round \(round)") }
            #expect(Self.reads(api) - before <= 2, "round \(round): \(Self.reads(api) - before) reads for 200 streams")
        }
    }

    /// Frames from the shared window are filtered per stream: by device, kind, project, topic
    /// and message, as a read of the log filters them.
    @Test func eachStreamGetsOnlyWhatItsFiltersMatch() throws {
        let api = InProcess()
        let a = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        let b = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"b"}"#, status: 201)
        let paths = [
            "all": "/emulator/v1/events:stream", "a": Self.demo + "/devices/a/events:stream",
            "delivered": Self.demo + "/events:stream?kind=delivered", "topic": "/emulator/v1/events:stream?topic=news",
            "other": "/emulator/v1/projects/other/events:stream",
        ]
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"other"}"#, status: 201)
        var bodies: [String: StreamingBody] = [:]
        for (name, path) in paths { bodies[name] = try EventStreamTests.stream(api, path).1 }
        // Warm-up: each stream's first read is of the log.
        api.emulator.recordProxyConnect("warm-up")
        for body in bodies.values { _ = EventStreamTests.read(body) }
        let before = Self.reads(api)
        try EventStreamTests.sendData(api, token: try #require(a.string("token")))
        try EventStreamTests.sendData(api, token: try #require(b.string("token")))
        _ = try api.json("POST", "/v1/projects/\(DemoProject.id)/messages:send", #"{"message":{"topic":"news","data":{"k":"v"}}}"#)
        let texts = bodies.mapValues { EventStreamTests.read($0) }
        #expect(Self.reads(api) - before <= 3)
        func events(_ name: String) throws -> [JSONValue] { try EventStreamTests.events(texts[name] ?? "") }
        #expect(try events("all").count == 5)
        let aEvents = try events("a")
        #expect(aEvents.map { $0.string("kind") } == ["accepted", "delivered"])
        #expect(try events("delivered").map { $0.string("kind") } == ["delivered", "delivered"])
        #expect(try events("topic").map { $0.string("kind") } == ["accepted"])
        #expect(try events("other").isEmpty)
        // A device stream sees only its device: b's events are not in a's stream.
        let sequences = try events("all").map { $0["sequence"]?.int64Value }
        #expect(aEvents.map { $0["sequence"]?.int64Value } == Array(sequences.prefix(2)))
    }

    /// A stream behind the window but not behind the log reads the log and misses nothing; once
    /// the log overwrote what it had not read, it is told how many it missed.
    @Test func aStreamBehindTheWindowReadsTheLogAndIsToldWhenItLagged() throws {
        var settings = EmulatorSettings()
        settings.maxEvents = 3 * EventBroadcast.maxFrames
        let api = InProcess(Emulator(settings: settings))
        let (_, slow) = try EventStreamTests.stream(api, "/emulator/v1/events:stream?kind=proxyConnect")
        let (_, fast) = try EventStreamTests.stream(api, "/emulator/v1/events:stream?kind=proxyConnect")
        api.emulator.recordProxyConnect("0")
        _ = EventStreamTests.read(slow)
        _ = EventStreamTests.read(fast)
        let count = 2 * EventBroadcast.maxFrames
        for i in 1...count {
            api.emulator.recordProxyConnect("\(i)")
            if i % 1000 == 0 { #expect(try EventStreamTests.events(EventStreamTests.read(fast)).count == 1000) }
        }
        let behind = EventStreamTests.read(slow)
        #expect(!behind.contains("event: lagged"))
        #expect(try EventStreamTests.events(behind).map { $0.string("detail") } == (1...count).map { "\($0)" })
        // Now past the log's ring as well.
        for i in 1...(4 * EventBroadcast.maxFrames) { api.emulator.recordProxyConnect("again \(i)") }
        _ = EventStreamTests.read(fast)
        let lagged = EventStreamTests.read(slow)
        #expect(lagged.hasPrefix("event: lagged\ndata: {\"missed\":"))
        #expect(try EventStreamTests.events(lagged).last?.string("detail") == "again \(4 * EventBroadcast.maxFrames)")
    }

    /// A subscriber with a small receive window that never reads: the server stops writing once
    /// the connection's buffers are full, however much is logged (20 MB here), instead of handing
    /// the kernel megabytes of frames.
    @Test func aSubscriberThatNeverReadsIsSentABoundedAmount() async throws {
        try await withLiveServer { server in
            let connection = try RawConnection(port: server.http.port, receiveBuffer: 4096)
            try connection.send("GET /emulator/v1/events:stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try connection.readHead().status == 200)
            let live = server.responder.live
            let big = String(repeating: "x", count: 10_000)
            let logged = 2000
            for _ in 0..<logged { server.emulator.recordProxyConnect(big) }
            // Until a wake-up finds the connection full: the server has stopped writing. Each
            // round logs one more event, to wake the stream again.
            var rounds = 0
            while live.streamStalls.load(ordering: .relaxed) == 0, rounds < 10_000 {
                server.emulator.recordProxyConnect("wake")
                try await Self.roundTrip(server)
                rounds += 1
            }
            #expect(live.streamStalls.load(ordering: .relaxed) > 0)
            let sent = live.streamedBytes.load(ordering: .relaxed)
            #expect(sent < 768 << 10, "\(sent) bytes handed to a connection that reads nothing")
            #expect(logged * big.utf8.count > 8 * sent)
        }
    }

    private static func roundTrip(_ server: EmulatorServer) async throws {
        let connection = try RawConnection(port: server.http.port)
        try connection.send("GET /emulator/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
    }

    /// A loop wakes its streams at once after a quiet spell, and otherwise once per
    /// `wakeInterval` with all that was logged: one socket write per stream per event made 1,000
    /// streams cost a send 76 times its time.
    @Test func wakeUpsInQuickSuccessionAreGatheredIntoOne() throws {
        let emulator = Emulator()
        let broadcast = EventBroadcast(emulator: emulator, frames: EventFrames())
        let loop = EmbeddedEventLoop()
        let wakes = Mutex(0)
        let watch = broadcast.subscribe(on: loop) { wakes.withLock { $0 += 1 } }
        emulator.recordProxyConnect("first")
        loop.run()
        #expect(wakes.withLock { $0 } == 1, "the first is at once")
        for n in 0..<50 { emulator.recordProxyConnect("burst \(n)") }
        loop.run()
        #expect(wakes.withLock { $0 } == 1, "a burst right after waits for the interval")
        loop.advanceTime(by: EventBroadcast.wakeInterval)
        #expect(wakes.withLock { $0 } == 2, "and then wakes the streams once for all of it")
        loop.advanceTime(by: .seconds(1))
        emulator.recordProxyConnect("after a quiet spell")
        loop.run()
        #expect(wakes.withLock { $0 } == 3)
        _ = watch
    }
}
