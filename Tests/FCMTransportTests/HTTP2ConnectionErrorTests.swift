// SPDX-License-Identifier: Apache-2.0

import FCMTesting
@testable import FCMTransport
import Testing

/// A connection error ends the connection (RFC 9113 §5.4.1: the endpoint that sends GOAWAY for
/// a connection error MUST close the TCP connection): the GOAWAY, then the end of the socket,
/// however the client goes on sending.
@Suite("HTTP/2 connection errors close the connection", .timeLimit(.minutes(1)))
struct HTTP2ConnectionErrorTests {
    static let send = "/v1/projects/demo-fcm-emu/messages:send"

    /// HEADERS then RST_STREAM, over and over (the rapid reset of CVE-2023-44487): NIO's DoS
    /// heuristics answer GOAWAY ENHANCE_YOUR_CALM, and the connection closes even though the
    /// client keeps it busy with PINGs.
    @Test func aRapidResetClientGetsEnhanceYourCalmThenTheEnd() async throws {
        try await withLiveServer(tls: true) { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var bytes: [UInt8] = []
            for n in 0..<400 {
                let stream = UInt32(2 * n + 1)
                bytes += RawHTTP2Client.post(stream: stream, path: Self.send)
                bytes += RawHTTP2Client.frame(type: 0x3, flags: 0, stream: stream, payload: [0, 0, 0, 0x8])
            }
            try await client.send(bytes)
            let (goAway, closed, pingsAnswered) = await Self.goAwayThenEnd(client)
            // Last stream 0: NIO judged the peer to misbehave, so none of its streams counts.
            #expect(goAway == .init(lastStreamID: 0, errorCode: 0xb, debugData: ""))
            #expect(closed, "the connection stayed open after its GOAWAY")
            #expect(pingsAnswered == 0, "frames were still decoded after the GOAWAY")
        }
    }

    /// WINDOW_UPDATE with an increment of 0 on stream 0 is a connection error PROTOCOL_ERROR
    /// (RFC 9113 §6.9), with a request still open on the connection: its GOAWAY names that stream
    /// as the last received, and the connection does not wait for the stream to end.
    @Test func aZeroWindowIncrementOnTheConnectionGetsProtocolErrorThenTheEnd() async throws {
        try await withLiveServer(tls: true) { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            try await client.send(
                RawHTTP2Client.post(stream: 1, path: Self.send) + RawHTTP2Client.frame(type: 0x8, flags: 0, stream: 0, payload: [0, 0, 0, 0]))
            let (goAway, closed, pingsAnswered) = await Self.goAwayThenEnd(client)
            #expect(goAway == .init(lastStreamID: 1, errorCode: 0x1, debugData: ""))
            #expect(closed, "the connection stayed open after its GOAWAY")
            #expect(pingsAnswered == 0, "frames were still decoded after the GOAWAY")
        }
    }

    /// FCM's GOAWAY for too many streams leaves the streams accepted to finish, but a client that
    /// never ends them does not keep the connection: it closes at the grace period, though a PING
    /// sent meanwhile is still answered.
    @Test func streamsLeftOpenAfterTooManyStreamsEndWithTheGracePeriod() async throws {
        try await withLiveServer(tls: true) { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var bytes: [UInt8] = []
            for n in 0...100 { bytes += RawHTTP2Client.post(stream: UInt32(2 * n + 1), path: Self.send) }
            // Timed from before the streams go: the grace runs from the GOAWAY they draw, which a
            // busy machine may write before a clock read after the send.
            let clock = ContinuousClock()
            let start = clock.now
            try await client.send(bytes)
            let (goAway, closed, pingsAnswered) = await Self.goAwayThenEnd(client, pings: 1, thenWait: true)
            #expect(goAway == .init(lastStreamID: 199, errorCode: 0x1, debugData: "exceeded_max_concurrent_streams"))
            #expect(closed)
            #expect(pingsAnswered == 1, "the accepted streams' connection is still read")
            #expect(clock.now - start >= .seconds(4), "closed before the accepted streams had their grace")
        }
    }

    /// A malformed request (an uppercase field name, RFC 9113 §8.2.1) is reset with
    /// PROTOCOL_ERROR and the connection goes on: the next request is answered.
    @Test func aMalformedRequestIsResetAndTheConnectionGoesOn() async throws {
        try await withLiveServer(tls: true) { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            try await client.send(
                RawHTTP2Client.get(stream: 1, path: "/emulator/v1/health", extra: [("X-Upper", "1")])
                    + RawHTTP2Client.get(stream: 3, path: "/emulator/v1/health"))
            var reset: [UInt8]?
            var answered = false
            for await event in client.events {
                switch event {
                case .frame(0x3, _, 1, let payload): reset = payload
                case .frame(0x1, _, 3, _): answered = true
                case .frame: continue
                case .closed: break
                }
                if reset != nil, answered { break }
            }
            #expect(reset == [0, 0, 0, 0x1], "stream 1 was not reset with PROTOCOL_ERROR")
            #expect(answered, "the request after it was not answered")
        }
    }

    /// Past 200 malformed requests the client is let go as NIO let it go when it checked them
    /// itself: GOAWAY ENHANCE_YOUR_CALM naming stream 0, then the end, however it goes on.
    @Test func aClientOfManyMalformedRequestsGetsEnhanceYourCalmThenTheEnd() async throws {
        try await withLiveServer(tls: true) { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var bytes: [UInt8] = []
            for n in 0...HTTP2Connection.maxMalformedRequests {
                bytes += RawHTTP2Client.get(stream: UInt32(2 * n + 1), path: "/emulator/v1/health", extra: [("te", "gzip")])
            }
            try await client.send(bytes)
            let (goAway, closed, pingsAnswered) = await Self.goAwayThenEnd(client)
            #expect(goAway == .init(lastStreamID: 0, errorCode: 0xb, debugData: ""))
            #expect(closed, "the connection stayed open after its GOAWAY")
            #expect(pingsAnswered == 0, "frames were still decoded after the GOAWAY")
        }
    }

    /// Reads up to the server's GOAWAY, then sends a PING after each frame the server writes
    /// until it ends the connection; a server that goes on answering PINGs is given `pings`, and
    /// then, `thenWait`, waited for (the suite's time limit ends a wait that does not end).
    static func goAwayThenEnd(
        _ client: RawHTTP2Client, pings: Int = 20, thenWait: Bool = false
    ) async -> (goAway: RawHTTP2Client.GoAway?, closed: Bool, pingsAnswered: Int) {
        var events = client.events.makeAsyncIterator()
        var goAway: RawHTTP2Client.GoAway?
        while goAway == nil, let event = await events.next() {
            switch event {
            case .frame(0x7, _, _, let payload): goAway = RawHTTP2Client.goAway(payload)
            case .frame: continue
            case .closed: return (nil, true, 0)
            }
        }
        let ping = RawHTTP2Client.frame(type: 0x6, flags: 0, stream: 0, payload: Array(repeating: 1, count: 8))
        var answered = 0
        for _ in 0..<pings {
            // The server may have closed already: a failed send is what the test waits for.
            try? await client.send(ping)
            guard let event = await events.next(), event != .closed else { return (goAway, true, answered) }
            if case .frame(0x6, 0x1, _, _) = event { answered += 1 }
        }
        while thenWait, let event = await events.next() {
            if event == .closed { return (goAway, true, answered) }
        }
        try? await client.channel.close()
        return (goAway, false, answered)
    }
}
