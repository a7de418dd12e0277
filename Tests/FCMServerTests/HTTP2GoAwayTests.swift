// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

/// HTTP/2 as FCM's front end ends it (docs/faults.md): GOAWAY for too many
/// streams, GOAWAY faults, and the slow-handshake fault.
@Suite("HTTP/2 GOAWAY and handshakes", .timeLimit(.minutes(1)))
struct HTTP2GoAwayTests {
    static let send = "/v1/projects/demo-fcm-emu/messages:send"

    /// firebase-admin-node users meet "GOAWAY - exceeded_max_concurrent_streams, Error code: 1"
    /// (firebase/firebase-admin-node#2943): 100 streams are advertised, the 101st is refused with a
    /// GOAWAY that names the last stream accepted, and the accepted streams are still answered.
    @Test func theStreamPastTheAdvertisedLimitGetsFCMsGoAway() async throws {
        try await withServer { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            // 101 streams opened in one write, before the server's SETTINGS can be heeded.
            var bytes: [UInt8] = []
            for n in 0...100 { bytes += RawHTTP2Client.post(stream: UInt32(2 * n + 1), path: Self.send) }
            try await client.send(bytes)
            var events = client.events.makeAsyncIterator()
            var settings: [UInt8]?
            var goAway: RawHTTP2Client.GoAway?
            while goAway == nil, case .frame(let type, let flags, _, let payload)? = await events.next() {
                if type == 0x4, flags & 0x1 == 0 { settings = payload }
                if type == 0x7 { goAway = RawHTTP2Client.goAway(payload) }
            }
            // SETTINGS_MAX_CONCURRENT_STREAMS (0x3) = 100 was advertised.
            let advertised = try #require(settings)
            #expect(stride(from: 0, to: advertised.count, by: 6).contains { advertised[$0 + 1] == 0x3 && advertised[$0 + 5] == 100 })
            #expect(goAway == .init(lastStreamID: 199, errorCode: 0x1, debugData: "exceeded_max_concurrent_streams"))
            // A stream it accepted is still served: its body ends, its answer comes.
            try await client.send(RawHTTP2Client.data(stream: 1, #"{"message":{"topic":"news"}}"#))
            var answered = false
            while !answered, case .frame(let type, _, let stream, _)? = await events.next() {
                answered = type == 0x1 && stream == 1
            }
            #expect(answered)
            try? await client.channel.close()
        }
    }

    /// `expect: 100-continue` over HTTP/2 (curl sends it and waits a second): an interim HEADERS
    /// frame on the stream before its body is sent, then the answer once it is (RFC 9110
    /// §10.1.1). The PING behind the request is answered after the interim answer was written,
    /// so its ACK marks where to stop looking.
    @Test func anExpectationOfContinueIsAnsweredBeforeTheBody() async throws {
        try await withServer { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            let ping = RawHTTP2Client.frame(type: 0x6, flags: 0, stream: 0, payload: Array(repeating: 7, count: 8))
            try await client.send(RawHTTP2Client.post(stream: 1, path: Self.send, extra: [("expect", "100-continue")]) + ping)
            var events = client.events.makeAsyncIterator()
            var interim: (flags: UInt8, block: [UInt8])?
            while case .frame(let type, let flags, let stream, let payload)? = await events.next(), !(type == 0x6 && flags & 0x1 == 1) {
                if type == 0x1, stream == 1 { interim = (flags, payload) }
            }
            let continued = try #require(interim, "no HEADERS on the stream before its body")
            #expect(continued.flags & 0x1 == 0, "the interim answer does not end the stream")
            #expect(continued.block.first != 0x88, "not the final :status 200")
            try await client.send(RawHTTP2Client.data(stream: 1, #"{"message":{"topic":"news"}}"#))
            var final: [UInt8]?
            while final == nil, case .frame(let type, _, let stream, let payload)? = await events.next() {
                if type == 0x1, stream == 1 { final = payload }
            }
            #expect(final?.first == 0x88, ":status 200, HPACK's static entry 8")
            try? await client.channel.close()
        }
    }

    /// A client that gives up on a request resets its stream (RST_STREAM CANCEL): the stream's
    /// handler logs the error with the peer's address, which on a stream channel must not be
    /// asked of the stream's core (it traps), and the server goes on serving.
    @Test func aClientThatResetsAStreamLeavesTheServerServing() async throws {
        try await withServer { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            let cancel: [UInt8] = [0, 0, 0, 0x8]
            try await client.send(
                RawHTTP2Client.post(stream: 1, path: Self.send) + RawHTTP2Client.frame(type: 0x3, flags: 0, stream: 1, payload: cancel)
                    + RawHTTP2Client.post(stream: 3, path: Self.send) + RawHTTP2Client.data(stream: 3, #"{"message":{"topic":"news"}}"#))
            var answered = false
            for await event in client.events {
                if case .frame(0x1, _, 3, _) = event {
                    answered = true
                    break
                }
            }
            #expect(answered)
            try? await client.channel.close()
        }
    }

    /// A client that waits for SETTINGS may keep 100 streams open and is never refused.
    @Test func aHundredOpenStreamsAreAllowed() async throws {
        try await withServer { server in
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var bytes: [UInt8] = []
            for n in 0..<100 { bytes += RawHTTP2Client.post(stream: UInt32(2 * n + 1), path: Self.send) }
            // Then each ends.
            for n in 0..<100 { bytes += RawHTTP2Client.data(stream: UInt32(2 * n + 1), #"{"message":{"topic":"news"}}"#) }
            try await client.send(bytes)
            var answers = 0
            var goAways = 0
            for await event in client.events {
                guard case .frame(let type, _, _, _) = event else { break }
                if type == 0x1 { answers += 1 }
                if type == 0x7 { goAways += 1 }
                if answers == 100 || goAways > 0 { break }
            }
            #expect(answers == 100)
            #expect(goAways == 0)
            try? await client.channel.close()
        }
    }

    /// `{"goaway": "graceful"}`: the call is answered, GOAWAY NO_ERROR names it as the last stream,
    /// and the connection closes once its streams are done.
    @Test func aGracefulGoAwayAnswersTheCallThenClosesTheConnection() async throws {
        try await withServer { server in
            try server.emulator.addFaultRule(FaultRule(id: "g", match: .init(api: .v1, nth: 2), action: .goAway(errorCode: 0, debugData: nil)))
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            let body = #"{"message":{"topic":"news"}}"#
            try await client.send(
                RawHTTP2Client.post(stream: 1, path: Self.send) + RawHTTP2Client.data(stream: 1, body)
                    + RawHTTP2Client.post(stream: 3, path: Self.send) + RawHTTP2Client.data(stream: 3, body))
            var answered: [UInt32] = []
            var goAway: RawHTTP2Client.GoAway?
            var closed = false
            for await event in client.events {
                switch event {
                case .frame(0x1, _, let stream, _): answered.append(stream)
                case .frame(0x7, _, _, let payload): goAway = RawHTTP2Client.goAway(payload)
                case .closed: closed = true
                default: break
                }
            }
            #expect(answered == [1, 3])
            #expect(goAway == .init(lastStreamID: 3, errorCode: 0, debugData: ""))
            #expect(closed)
        }
    }

    /// An error GOAWAY (`ENHANCE_YOUR_CALM`, with debug data) replaces the answer: the stream
    /// before it is the last processed, and the connection closes.
    @Test func anErrorGoAwayReplacesTheAnswerAndClosesTheConnection() async throws {
        try await withServer { server in
            let rule = try FaultRuleCodec.decode(
                try JSONParser.parse(#"{"match":{"api":"v1","nth":2},"action":{"goaway":"ENHANCE_YOUR_CALM","debugData":"too_many_pings"}}"#),
                defaultId: "e")
            try server.emulator.addFaultRule(rule)
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            let body = #"{"message":{"topic":"news"}}"#
            try await client.send(RawHTTP2Client.post(stream: 1, path: Self.send) + RawHTTP2Client.data(stream: 1, body))
            var events = client.events.makeAsyncIterator()
            while case .frame(let type, _, let stream, _)? = await events.next(), !(type == 0x1 && stream == 1) {}
            try await client.send(RawHTTP2Client.post(stream: 3, path: Self.send) + RawHTTP2Client.data(stream: 3, body))
            var answeredThree = false
            var goAway: RawHTTP2Client.GoAway?
            var closed = false
            while let event = await events.next() {
                switch event {
                case .frame(0x1, _, 3, _): answeredThree = true
                case .frame(0x7, _, _, let payload): goAway = RawHTTP2Client.goAway(payload)
                case .closed: closed = true
                default: break
                }
            }
            #expect(!answeredThree)
            #expect(goAway == .init(lastStreamID: 1, errorCode: 0xb, debugData: "too_many_pings"))
            #expect(closed)
        }
    }

    /// Over HTTP/1.1 a graceful goaway is `Connection: close` after the answer, and an error one
    /// a connection dropped without an answer.
    @Test func overHTTP1AGoAwayClosesTheConnection() async throws {
        try await withServer { server in
            try server.emulator.addFaultRule(FaultRule(id: "g", match: .init(api: .v1, count: 1), action: .goAway(errorCode: 0, debugData: nil)))
            try server.emulator.addFaultRule(FaultRule(id: "e", match: .init(api: .v1, count: 1), action: .goAway(errorCode: 0xb, debugData: nil)))
            let body = #"{"message":{"topic":"news"}}"#
            let request = "POST \(Self.send) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer any\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let graceful = try RawConnection(port: server.http.port)
            try graceful.send(request)
            let answer = try graceful.readResponse()
            #expect(answer.status == 200)
            #expect(answer.header("Connection") == "close")
            #expect(try graceful.isClosedByPeer())
            let error = try RawConnection(port: server.http.port)
            try error.send(request)
            #expect(try error.isClosedByPeer())
        }
    }

    /// The HTTPS port's HTTP/1.1 (ALPN `http/1.1`) goes through the same configurator as HTTP/2
    /// streams, and must not be treated as one: a graceful goaway is `Connection: close` there.
    @Test func overTLSWithHTTP1AGoAwayClosesTheConnection() async throws {
        try await withServer { server in
            try server.emulator.addFaultRule(FaultRule(id: "g", match: .init(api: .v1, count: 1), action: .goAway(errorCode: 0, debugData: nil)))
            let port = try #require(server.https).port
            let body = #"{"message":{"topic":"news"}}"#
            let answer = try await RawHTTP2Client.http1(
                port: port,
                "POST \(Self.send) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer any\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    /// `{"slowHandshake": "300ms"}`: the first connection's TLS handshake takes at least that long
    /// on a clock running at wall speed; the next connection's does not wait.
    @Test func aSlowHandshakeHoldsTheClientHello() async throws {
        try await withServer(wallClock: true) { server in
            let rule = try FaultRuleCodec.decode(try JSONParser.parse(#"{"match":{"nth":1},"action":{"slowHandshake":"300ms"}}"#), defaultId: "s")
            try server.emulator.addFaultRule(rule)
            let port = try #require(server.https).port
            let clock = ContinuousClock()
            let slow = try await clock.measure {
                let client = try await RawHTTP2Client.connect(port: port)
                var events = client.events.makeAsyncIterator()
                _ = await events.next()  // the server's SETTINGS: the handshake is done
                try? await client.channel.close()
            }
            #expect(slow >= .milliseconds(300))
            #expect(try server.emulator.events(EventQuery(kinds: [.faultInjected])).map(\.detail) == ["rule s: slowHandshake 300ms"])
        }
    }

    @Test func theCodecReadsGoAwayAndSlowHandshakeAndRefusesWhatCannotApply() throws {
        for (text, action) in [
            (#"{"action":{"goaway":"graceful"}}"#, FaultRule.Action.goAway(errorCode: 0, debugData: nil)),
            (#"{"action":{"goaway":"PROTOCOL_ERROR","debugData":"x"}}"#, .goAway(errorCode: 1, debugData: "x")),
            (#"{"action":{"slowHandshake":"2s"}}"#, .slowHandshake(millis: 2000)),
            (#"{"action":{"slowHandshake":150}}"#, .slowHandshake(millis: 150)),
        ] {
            let rule = try FaultRuleCodec.decode(try JSONParser.parse(text), defaultId: "r")
            #expect(rule.action == action, "\(text)")
            // Snapshots write rules with the codec: made in code or posted, they read back the same.
            let unposted = FaultRule(id: "r", match: rule.match, action: rule.action)
            #expect(try FaultRuleCodec.decode(FaultRuleCodec.encode(unposted), defaultId: "x").action == action)
        }
        for (text, field) in [
            (#"{"action":{"goaway":"SOMETIMES"}}"#, "action.goaway"),
            (#"{"match":{"api":"xmpp"},"action":{"goaway":"graceful"}}"#, "match.api"),
            (#"{"action":{"status":503,"debugData":"x"}}"#, "action.debugData"),
            (#"{"match":{"project":"p"},"action":{"slowHandshake":"1s"}}"#, "match.project"),
            (#"{"match":{"api":"v1"},"action":{"slowHandshake":"1s"}}"#, "match.api"),
            (#"{"action":{"slowHandshake":"11m"}}"#, "action.slowHandshake"),
        ] {
            let json = try JSONParser.parse(text)
            let error = #expect(throws: FCMError.self, "\(text)") { try FaultRuleCodec.decode(json, defaultId: "r") }
            #expect(error?.field == field, "\(text)")
        }
    }

    private func withServer(wallClock: Bool = false, _ body: (EmulatorServer) async throws -> Void) async throws {
        // A fault's delay is emulator time, waited at the clock's speed: 1 on a wall clock, 0 on a
        // virtual one (it would not wait at all).
        let emulator = wallClock ? Emulator(clock: .wall(wallMillis: { Int64(Date().timeIntervalSince1970 * 1000) })) : Emulator()
        try await withLiveServer(emulator, tls: true, wallClock: wallClock, body)
    }
}
