// SPDX-License-Identifier: Apache-2.0

import FCMTesting
@testable import FCMTransport
import NIOCore
import Testing

/// The idle timeout on the HTTPS port (docs/limits.md, "HTTP idle"): an HTTP/2 connection with
/// nothing to do closes as an HTTP/1.1 one does, after a GOAWAY, unless a wait keeps it; so does a
/// connection whose TLS handshake never completes, though a `slowHandshake` fault's hold does not
/// count as the client's idleness.
@Suite("HTTPS idle connections", .timeLimit(.minutes(1)))
struct HTTPSIdleTests {
    /// The listeners' idle timeout here: short, yet long enough that a client starved of the CPU
    /// by the parallel suite does not look idle during its TLS handshake, which the timeout now
    /// covers (runs saw 200 ms and 1 s of starvation fail one).
    static let idle = TimeAmount.seconds(2)

    /// An HTTP/2 connection with nothing to do is closed at the idle timeout, as an HTTP/1.1 one
    /// is: NIO's multiplexer hands the timeout to no stream, so the connection acts on it.
    @Test func anIdleHTTP2ConnectionIsClosed() async throws {
        try await withHTTPSServer(idle: Self.idle) { port, _ in
            let client = try await RawHTTP2Client.connect(port: port)
            let (goAway, closed) = await client.goAwayAndEnd()
            #expect(goAway == .init(lastStreamID: 0, errorCode: 0, debugData: ""))
            #expect(closed)
        }
    }

    /// A wait (`waitFor`) writes nothing until it ends: its connection is kept past the idle
    /// timeout, as over HTTP/1.1, and the answer comes at the wait's own timeout.
    @Test func aWaitKeepsItsConnectionPastTheIdleTimeout() async throws {
        try await withHTTPSServer(idle: Self.idle, responder: InProcess().responder) { port, _ in
            let client = try await RawHTTP2Client.connect(
                port: port,
                then: RawHTTP2Client.get(
                    stream: 1, path: "/emulator/v1/projects/demo-fcm-emu/events?kind=delivered&waitFor=1&timeout=5s",
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

    /// Before ALPN has chosen a protocol no protocol handler hears the idle timeout: a client
    /// that connects and sends nothing, or half a ClientHello, is let go all the same.
    @Test func aConnectionThatNeverCompletesItsHandshakeIsClosed() async throws {
        try await withHTTPSServer(idle: Self.idle) { port, _ in
            let silent = try RawConnection(port: port)
            let halfHello = try RawConnection(port: port)
            try halfHello.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
            #expect(try silent.isClosedByPeer(within: 10_000))
            #expect(try halfHello.isClosedByPeer(within: 10_000))
        }
    }

    /// A `slowHandshake` fault's hold is the server's wait, not the client's idleness: a hold
    /// longer than the idle timeout still ends in a handshake and the server's SETTINGS.
    @Test func aHeldHandshakeOutlastsTheIdleTimeout() async throws {
        var router = Router(
            unmounted: Dialect(
                notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
                refused: { HTTPResponse(status: $0.status) }))
        router.add("GET", "/") { _, _ in HTTPResponse(status: 200) }
        let slow = HTTPResponder(router: router, maxBodyBytes: 1024, handshakeDelayMillis: { 3000 }) { _ in HTTPResponse(status: 413) }
        try await withHTTPSServer(idle: Self.idle, responder: slow) { port, _ in
            let client = try await RawHTTP2Client.connect(port: port)
            var events = client.events.makeAsyncIterator()
            guard case .frame(let type, _, _, _)? = await events.next() else {
                Issue.record("closed before the handshake")
                return
            }
            #expect(type == 0x4, "the server's SETTINGS")
            try? await client.channel.close()
        }
    }
}
