// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMTesting
import FCMTransport
import Testing

/// A stopping server lets its connections finish (`OpenConnections`): an idle
/// HTTP/1.1 connection is closed at once, and an HTTP/2 connection gets a graceful GOAWAY, its
/// streams in flight answered, then the close.
@Suite(.timeLimit(.minutes(1)))
struct ShutdownQuiescingTests {
    static let send = "/v1/projects/demo-fcm-emu/messages:send"

    @Test func anIdleKeepAliveConnectionIsClosedWhenTheServerStops() async throws {
        let server = try await LiveServer.start(tls: false, wallClock: true)
        let connection = try RawConnection(port: server.http.port)
        try connection.send("GET /emulator/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        await server.shutdown()
        // Before, the listener closed and the connection stayed open for as long as the client liked.
        #expect(try connection.isClosedByPeer(within: 3_000))
    }

    @Test func anHTTP2StreamInFlightIsAnsweredAfterAGracefulGoAway() async throws {
        let server = try await LiveServer.start(tls: true, wallClock: true)
        let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
        // Stream 1's headers, its body still to come: a request in flight. The PING's answer says
        // the server has read the headers before it (frames are read in order).
        let ping = RawHTTP2Client.frame(type: 0x6, flags: 0, stream: 0, payload: [UInt8](repeating: 7, count: 8))
        try await client.send(RawHTTP2Client.post(stream: 1, path: Self.send) + ping)
        var events = client.events.makeAsyncIterator()
        while case .frame(let type, let flags, _, _)? = await events.next(), !(type == 0x6 && flags & 0x1 == 1) {}
        let stopped = Task { await server.shutdown() }
        var goAway: RawHTTP2Client.GoAway?
        while goAway == nil, case .frame(let type, _, _, let payload)? = await events.next() {
            if type == 0x7 { goAway = RawHTTP2Client.goAway(payload) }
        }
        #expect(goAway == .init(lastStreamID: 1, errorCode: 0, debugData: ""))
        try await client.send(RawHTTP2Client.data(stream: 1, #"{"message":{"topic":"news"}}"#))
        var answered = false
        var closed = false
        while let event = await events.next() {
            switch event {
            case .frame(let type, _, let stream, _): answered = answered || (type == 0x1 && stream == 1)
            case .closed: closed = true
            }
        }
        #expect(answered)
        #expect(closed)
        await stopped.value
    }
}
