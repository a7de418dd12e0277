// SPDX-License-Identifier: Apache-2.0

@testable import FCMControl
@testable import FCMCore
@testable import FCMHTTP
import FCMJSON
import FCMTesting
@testable import FCMTransport
import Synchronization
import Testing

/// What open waits and streams cost the one who logs events, and the strict
/// reading of wait parameters.
@Suite("Waits and streams at scale")
struct LiveCostTests {
    static let demo = EventStreamTests.demo

    static func pending(_ response: HTTPResponse) throws -> PendingAnswer {
        guard case .live(.wait(let pending)) = response.outcome else {
            Issue.record("no wait: \(response.status) \(response.bodyText)")
            throw CancellationError()
        }
        return pending
    }

    /// `timeout=0x10` was a 16-second wait; `+5`, ` 5`, `1e3` and `16 ` were read too.
    @Test func waitParametersAreReadStrictly() {
        let api = InProcess()
        let bad = [
            ("waitFor=1&timeout=0x10", "timeout"), ("waitFor=1&timeout=%2B5", "timeout"), ("waitFor=1&timeout=%205", "timeout"),
            ("waitFor=1&timeout=1e3", "timeout"), ("waitFor=1&timeout=16%20", "timeout"), ("waitFor=1&timeout=inf", "timeout"),
            ("waitFor=%2B1", "waitFor"), ("waitFor=0x1", "waitFor"), ("waitFor=%201", "waitFor"), ("waitFor=1e1", "waitFor"),
        ]
        for (query, field) in bad {
            let refused = api.call("GET", Self.demo + "/events?kind=delivered&\(query)")
            #expect(refused.status == 400, "\(query)")
            #expect(refused.bodyText.contains("\"field\": \"\(field)\""), "\(query): \(refused.bodyText)")
            #expect(refused.outcome.writesAnswer)
        }
        for good in ["waitFor=1&timeout=500ms", "waitFor=1&timeout=10s", "waitFor=1&timeout=5m", "waitFor=1&timeout=1m30s"] {
            #expect(api.call("GET", Self.demo + "/events?kind=delivered&\(good)").status == 200, "\(good)")
        }
    }

    /// 300 waits on one device's events are not woken by sends to another; each wake-up of a wait
    /// that matches nothing reads only the new events and leaves it waiting.
    @Test func waitsAreWokenOnlyByEventsThatMayConcernThem() throws {
        let api = InProcess()
        let a = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"b"}"#, status: 201)
        let woken = Atomic<Int>(0)
        var held: [(PendingAnswer, EventWatch)] = []
        for _ in 0..<300 {
            let pending = try Self.pending(api.call("GET", Self.demo + "/devices/b/events?kind=delivered&waitFor=1&timeout=5m"))
            held.append((pending, pending.watch { woken.add(1, ordering: .relaxed) }))
        }
        for _ in 0..<20 { try EventStreamTests.sendData(api, token: try #require(a.string("token"))) }
        #expect(woken.load(ordering: .relaxed) == 0)
        // Waits that match nothing and cannot be indexed (a message id) are woken, and stay waiting.
        let idle = try Self.pending(api.call("GET", "/emulator/v1/events?message=none&waitFor=1&timeout=5m"))
        let idleWoken = Atomic<Int>(0)
        let idleWatch = idle.watch { idleWoken.add(1, ordering: .relaxed) }
        try EventStreamTests.sendData(api, token: try #require(a.string("token")))
        #expect(idleWoken.load(ordering: .relaxed) == 1)
        guard case .waiting = idle.check() else {
            Issue.record("a wait for nothing answered")
            return
        }
        // The device's own delivery satisfies every one of the 300.
        let b = try api.json("GET", Self.demo + "/devices/b")
        try EventStreamTests.sendData(api, token: try #require(b.string("token")))
        #expect(woken.load(ordering: .relaxed) == 300)
        for (pending, _) in held {
            guard case .answer(let answer) = pending.check() else {
                Issue.record("not satisfied")
                continue
            }
            #expect(answer.header("Emulator-Wait") == "satisfied")
        }
        _ = idleWatch
    }

    /// 100 streams reading the same 10 events cost 10 encodings, not 1,000.
    @Test func eachEventIsEncodedOnceForEveryStream() throws {
        let api = InProcess()
        let bodies = try (0..<100).map { _ in try EventStreamTests.stream(api, "/emulator/v1/events:stream").1 }
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","count":10}"#, status: 201)
        let before = api.events.frames.encodings.load(ordering: .relaxed)
        for body in bodies {
            let events = try EventStreamTests.events(EventStreamTests.read(body))
            #expect(events.count == 10)
            #expect(events.first?.string("project") == DemoProject.id)
        }
        #expect(api.events.frames.encodings.load(ordering: .relaxed) - before == 10)
        // Another log (a reset) reuses no frame of the old one, though the numbers go on.
        try api.emulator.reset()
        for body in bodies { _ = EventStreamTests.read(body) }
        #expect(api.events.frames.encodings.load(ordering: .relaxed) - before == 11)  // the demo project's creation
    }

    /// A stream behind a log that keeps to its byte cap is told how many events it missed.
    @Test func aStreamBehindTheByteCapIsToldItLagged() throws {
        var settings = EmulatorSettings()
        settings.maxEventBytes = 1 << 20
        let api = InProcess(Emulator(settings: settings))
        let (_, body) = try EventStreamTests.stream(api, "/emulator/v1/events:stream")
        let big = String(repeating: "x", count: 10_000)
        for _ in 0..<500 { api.emulator.recordProxyConnect(big) }
        let text = EventStreamTests.read(body)
        #expect(text.hasPrefix("event: lagged\ndata: {\"missed\":"))
        #expect(text.components(separatedBy: "\"kind\":\"proxyConnect\"").count - 1 < 110)
    }
}
