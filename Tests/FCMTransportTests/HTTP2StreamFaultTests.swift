// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Testing

/// Faults on one HTTP/2 stream (docs/faults.md, `rstStream` and `hold`): the matching call's
/// stream is reset or left unanswered while the connection's other streams are served, as
/// pooled HTTP/2 clients meet it (firebase-admin-node's `ERR_HTTP2_STREAM_ERROR`,
/// firebase-admin-java's connection that never returns to its pool).
@Suite("HTTP/2 per-stream faults", .timeLimit(.minutes(1)))
struct HTTP2StreamFaultTests {
    static let send = "/v1/projects/demo-fcm-emu/messages:send"

    static func call(_ stream: UInt32, topic: String = "news") -> [UInt8] {
        RawHTTP2Client.post(stream: stream, path: send) + RawHTTP2Client.data(stream: stream, #"{"message":{"topic":"\#(topic)"}}"#)
    }

    static func rstStream(_ stream: UInt32, code: UInt8) -> [UInt8] {
        RawHTTP2Client.frame(type: 0x3, flags: 0, stream: stream, payload: [0, 0, 0, code])
    }

    /// What the server sent until each of `streams` was answered or reset: each stream's first
    /// HEADERS block, the RST_STREAM codes, and GOAWAYs; nil when the connection ended first. The
    /// server handles the streams a write opens in their order on one event loop, so a stream
    /// opened before the last of `streams` and not answered by then was not answered at all.
    struct Seen {
        var answers: [UInt32: [UInt8]] = [:]
        var resets: [UInt32: UInt32] = [:]
        var goAways = 0

        var ended: Set<UInt32> { Set(answers.keys).union(resets.keys) }
    }

    static func until(_ streams: Set<UInt32>, _ events: inout AsyncStream<RawHTTP2Client.Event>.Iterator) async -> Seen? {
        var seen = Seen()
        while !streams.isSubset(of: seen.ended) {
            guard case .frame(let type, _, let stream, let payload)? = await events.next() else { return nil }
            switch type {
            case 0x1 where seen.answers[stream] == nil: seen.answers[stream] = payload
            case 0x3: seen.resets[stream] = payload.reduce(0) { $0 << 8 | UInt32($1) }
            case 0x7: seen.goAways += 1
            default: break
            }
        }
        return seen
    }

    /// `{"rstStream": "REFUSED_STREAM"}` on the 2nd call: that stream alone gets RST_STREAM 0x7,
    /// the calls before and after it on the same connection are answered, no GOAWAY comes, and
    /// the connection serves a stream opened later.
    @Test func aResetStreamEndsThatStreamAlone() async throws {
        try await withLiveServer(tls: true) { server in
            let rule = try FaultRuleCodec.decode(
                try JSONParser.parse(#"{"match":{"api":"v1","nth":2},"action":{"rstStream":"REFUSED_STREAM"}}"#), defaultId: "r")
            try server.emulator.addFaultRule(rule)
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var events = client.events.makeAsyncIterator()
            try await client.send(Self.call(1) + Self.call(3) + Self.call(5))
            let first = try #require(await Self.until([1, 3, 5], &events), "the connection was closed")
            #expect(Set(first.answers.keys) == [1, 5])
            #expect(first.resets == [3: 0x7])
            #expect(first.goAways == 0)
            try await client.send(Self.call(7))
            let later = try #require(await Self.until([7], &events), "the connection was closed")
            #expect(later.answers[7]?.first == 0x88, ":status 200")
            #expect(later.goAways == 0)
            #expect(try server.emulator.events(EventQuery(kinds: [.faultInjected])).map(\.detail) == ["rule r: rstStream REFUSED_STREAM"])
            try? await client.channel.close()
        }
    }

    /// `{"hold": true}`: the matching call is never answered while the others on its connection
    /// are; past `maxHolds` a matching call is answered 503; the client's RST_STREAM CANCEL gives
    /// the held call's place back, and so do the server's stop and the connection's close.
    @Test func aHeldStreamWaitsAloneUntilTheClientGivesUp() async throws {
        let live = LiveRequests(maxHolds: 1)
        let (holds, counted) = AsyncStream.makeStream(of: Int.self)
        live.onChange { kind, open in if kind == .hold { counted.yield(open) } }
        var fronts = FrontConfiguration()
        fronts.live = live
        try await withLiveServer(tls: true, fronts: fronts) { server in
            let rule = try FaultRuleCodec.decode(try JSONParser.parse(#"{"match":{"target":"held"},"action":{"hold":true}}"#), defaultId: "h")
            try server.emulator.addFaultRule(rule)
            var open = holds.makeAsyncIterator()
            let client = try await RawHTTP2Client.connect(port: try #require(server.https).port)
            var events = client.events.makeAsyncIterator()
            // Stream 1 is held; 3 is served; 5 would be held but the one place is taken.
            try await client.send(Self.call(1, topic: "held") + Self.call(3) + Self.call(5, topic: "held"))
            let first = try #require(await Self.until([3, 5], &events), "the connection was closed")
            #expect(first.answers[1] == nil && first.resets[1] == nil, "the held call has no answer")
            #expect(first.answers[3]?.first == 0x88, ":status 200")
            #expect(first.answers[5] != nil && first.answers[5]?.first != 0x88, "past the bound: an error status")
            #expect(first.goAways == 0)
            #expect(live.openHolds == 1)
            // The client gives up on stream 1: its place is given back.
            try await client.send(Self.rstStream(1, code: 0x8))
            #expect(await open.next() == 1)  // stream 1's admission
            #expect(await open.next() == 0)
            // A held call again, then the connection closes under it.
            try await client.send(Self.call(7, topic: "held") + Self.call(9))
            let second = try #require(await Self.until([9], &events), "the connection was closed")
            #expect(second.answers[7] == nil && second.resets[7] == nil && second.answers[9]?.first == 0x88)
            #expect(await open.next() == 1)
            // The server stops (`EmulatorServer.shutdown` ends every open request): the held stream
            // is reset with CANCEL.
            live.endAll()
            let stopped = try #require(await Self.until([7], &events), "the connection was closed")
            #expect(stopped.resets[7] == 0x8)
            #expect(await open.next() == 0)
            // Held again, then the connection closes under it.
            try await client.send(Self.call(11, topic: "held") + Self.call(13))
            _ = try #require(await Self.until([13], &events), "the connection was closed")
            #expect(await open.next() == 1)
            try await client.channel.close()
            #expect(await open.next() == 0)
        }
    }

    /// A held call is no progress: its connection, with nothing else going on, is closed at the
    /// idle timeout (GOAWAY NO_ERROR naming the held stream as the last one received), and the
    /// call's place is given back.
    @Test func aHeldCallDoesNotKeepItsConnectionPastTheIdleTimeout() async throws {
        let live = LiveRequests()
        let (holds, counted) = AsyncStream.makeStream(of: Int.self)
        live.onChange { kind, open in if kind == .hold { counted.yield(open) } }
        var router = Router(
            unmounted: Dialect(
                notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
                refused: { HTTPResponse(status: $0.status) }))
        router.add("GET", "/hold") { _, _ in
            var response = HTTPResponse(status: 504)
            if let slot = live.admit(.hold) { response.outcome = .hold(slot) }
            return response
        }
        let responder = HTTPResponder(router: router, maxBodyBytes: 1024, live: live) { _ in HTTPResponse(status: 413) }
        // HTTPSIdleTests' timeout: short, yet longer than a starved client's TLS handshake.
        try await withHTTPSServer(idle: .seconds(2), responder: responder) { port, _ in
            let client = try await RawHTTP2Client.connect(port: port, then: RawHTTP2Client.get(stream: 1, path: "/hold"))
            var open = holds.makeAsyncIterator()
            #expect(await open.next() == 1)
            let (goAway, closed) = await client.goAwayAndEnd()
            #expect(goAway == .init(lastStreamID: 1, errorCode: 0, debugData: ""))
            #expect(closed)
            #expect(await open.next() == 0)
        }
    }

    /// HTTP/1.1 has no stream to reset: `rstStream` drops the connection. A held call leaves its
    /// connection unanswered until the client closes it, which gives the place back.
    @Test func overHTTP1AResetDropsTheConnectionAndAHoldWaitsForTheClient() async throws {
        let live = LiveRequests()
        let (holds, counted) = AsyncStream.makeStream(of: Int.self)
        live.onChange { kind, open in if kind == .hold { counted.yield(open) } }
        var fronts = FrontConfiguration()
        fronts.live = live
        try await withLiveServer(fronts: fronts) { server in
            try server.emulator.addFaultRule(FaultRule(id: "r", match: .init(target: "reset"), action: .rstStream(errorCode: 0x2)))
            try server.emulator.addFaultRule(FaultRule(id: "h", match: .init(target: "held"), action: .hold))
            func request(_ topic: String) -> String {
                let body = #"{"message":{"topic":"\#(topic)"}}"#
                return "POST \(Self.send) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer any\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            let reset = try RawConnection(port: server.http.port)
            try reset.send(request("reset"))
            #expect(try reset.isClosedByPeer())
            var open = holds.makeAsyncIterator()
            do {
                let held = try RawConnection(port: server.http.port)
                try held.send(request("held"))
                #expect(await open.next() == 1)
                // Another connection is served meanwhile.
                let other = try RawConnection(port: server.http.port)
                try other.send(request("news"))
                #expect(try other.readResponse().status == 200)
                withExtendedLifetime(held) {}
            }  // the held connection's socket closes here
            #expect(await open.next() == 0)
        }
    }

    @Test func theCodecReadsResetStreamAndHoldAndRefusesWhatCannotApply() throws {
        for (text, action) in [
            (#"{"action":{"rstStream":"REFUSED_STREAM"}}"#, FaultRule.Action.rstStream(errorCode: 0x7)),
            (#"{"action":{"rstStream":"NO_ERROR"}}"#, .rstStream(errorCode: 0)),
            (#"{"action":{"rstStream":"HTTP_1_1_REQUIRED"}}"#, .rstStream(errorCode: 0xd)),
            (#"{"action":{"hold":true}}"#, .hold),
        ] {
            let rule = try FaultRuleCodec.decode(try JSONParser.parse(text), defaultId: "r")
            #expect(rule.action == action, "\(text)")
            let unposted = FaultRule(id: "r", match: rule.match, action: rule.action)
            #expect(try FaultRuleCodec.decode(FaultRuleCodec.encode(unposted), defaultId: "x").action == action)
        }
        #expect(FaultRule.Action.rstStream(errorCode: 0x8).summary == "rstStream CANCEL")
        #expect(FaultRule.Action.hold.summary == "hold")
        for (text, field) in [
            (#"{"action":{"rstStream":"refused"}}"#, "action.rstStream"),
            (#"{"action":{"rstStream":7}}"#, "action.rstStream"),
            (#"{"match":{"api":"xmpp"},"action":{"rstStream":"CANCEL"}}"#, "match.api"),
            (#"{"match":{"api":"xmpp"},"action":{"hold":true}}"#, "match.api"),
            (#"{"action":{"hold":true,"debugData":"x"}}"#, "action.debugData"),
        ] {
            let json = try JSONParser.parse(text)
            let error = #expect(throws: FCMError.self, "\(text)") { try FaultRuleCodec.decode(json, defaultId: "r") }
            #expect(error?.field == field, "\(text)")
        }
    }
}
