// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMJSON
import FCMTesting
@testable import FCMTransport
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The stream over the HTTP/1.1 pipeline: chunked frames, backpressure, heartbeats, the end.
@Suite("Event stream on a connection")
struct EventStreamConnectionTests {
    typealias Wire = HTTPHandlerTests.Wire
    static let demo = "/emulator/v1/projects/\(DemoProject.id)"
    static let open = "GET /emulator/v1/events:stream HTTP/1.1\r\nHost: localhost\r\n\r\n"

    @Test func framesArriveChunkedAsEventsAreLogged() throws {
        let wire = try Wire()
        try wire.send(Self.open)
        let head = try wire.received()
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(head.contains("retry: 2000"))
        _ = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        let frames = try wire.received()
        #expect(frames.contains("\"kind\":\"deviceCreated\""))
        #expect(frames.contains("id: 1\n"))
    }

    /// A subscriber that never reads holds a cursor, not a queue: nothing is read from the world
    /// or written while the connection cannot write, and it resumes where it stopped.
    @Test func aReaderThatDoesNotReadGrowsNothing() throws {
        let wire = try Wire()
        try wire.send(Self.open)
        _ = try wire.received()
        wire.channel.isWritable = false
        wire.channel.pipeline.fireChannelWritabilityChanged()
        _ = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","count":500}"#, status: 201)
        #expect(try wire.received().isEmpty)
        wire.channel.isWritable = true
        wire.channel.pipeline.fireChannelWritabilityChanged()
        let frames = try wire.received()
        #expect(frames.components(separatedBy: "\"kind\":\"deviceCreated\"").count - 1 == 500)
    }

    @Test func heartbeatsKeepAnIdleStreamOpenPastTheIdleTimeout() throws {
        let wire = try Wire()
        try wire.send(Self.open)
        _ = try wire.received()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(15))
        #expect(try wire.received() == "d\r\n: heartbeat\n\n\r\n")
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(300))
        #expect(wire.channel.isActive)
    }

    @Test func aClosedConnectionGivesItsSlotBack() throws {
        let wire = try Wire()
        try wire.send(Self.open)
        _ = try wire.received()
        #expect(wire.api.responder.live.openStreams == 1)
        try wire.channel.close().wait()
        wire.channel.embeddedEventLoop.run()
        #expect(wire.api.responder.live.openStreams == 0)
        // The emulator no longer calls the stream back.
        _ = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android"}"#, status: 201)
    }

    @Test func theServerStoppingEndsStreamsWithAFarewell() throws {
        let wire = try Wire()
        try wire.send(Self.open)
        _ = try wire.received()
        wire.api.responder.live.endAll()
        wire.channel.embeddedEventLoop.run()
        let tail = try wire.received()
        #expect(tail.contains("event: shutdown\ndata: {}\n\n"))
        #expect(tail.hasSuffix("0\r\n\r\n"))
        #expect(!wire.channel.isActive)
    }
}

@Suite("Waits")
struct WaitTests {
    typealias Wire = HTTPHandlerTests.Wire
    static let demo = "/emulator/v1/projects/\(DemoProject.id)"

    static func sendData(_ api: InProcess, token: String) throws {
        _ = try api.json("POST", "/v1/projects/\(DemoProject.id)/messages:send", #"{"message":{"token":"\#(token)","data":{"k":"v"}}}"#)
    }

    @Test func anInboxWaitEndsWhenTheDeliveryArrives() throws {
        let wire = try Wire()
        let device = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a","state":"offline"}"#, status: 201)
        try Self.sendData(wire.api, token: try #require(device.string("token")))
        try wire.send("GET \(Self.demo)/devices/a/inbox?waitFor=1&timeout=10s HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try wire.received().isEmpty)
        // The virtual clock does not move: coming online delivers, and that ends the wait.
        _ = try wire.api.json("PATCH", Self.demo + "/devices/a", #"{"state":"foreground"}"#)
        let answer = try wire.received()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains("Emulator-Wait: satisfied\r\n"))
        #expect(answer.contains("\"k\": \"v\""))
        #expect(wire.api.responder.live.openWaits == 0)
    }

    @Test func aWaitTimesOutWithWhatThereIs() throws {
        let wire = try Wire()
        _ = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        try wire.send("GET \(Self.demo)/events?kind=delivered&waitFor=2&timeout=5s HTTP/1.1\r\nHost: localhost\r\n\r\n")
        wire.channel.embeddedEventLoop.advanceTime(by: .milliseconds(4999))
        #expect(try wire.received().isEmpty)
        wire.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        let answer = try wire.received()
        #expect(answer.contains("Emulator-Wait: timeout\r\n"))
        #expect(answer.contains("\"events\": []"))
    }

    /// On a paused wall clock nothing moves by itself; a wait still ends as soon as its condition
    /// holds, and its timeout is wall time, so a paused clock cannot hold a harness forever.
    @Test func onAPausedClockAWaitEndsWhenItsConditionHolds() throws {
        let wall = WallClock()
        let emulator = Emulator(clock: .wall(wallMillis: { wall.read() }))
        emulator.pauseClock()
        let wire = try Wire(emulator: emulator)
        let device = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        try wire.send(
            "GET \(Self.demo)/events?token=\(try #require(device.string("token")))&kind=delivered&waitFor=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try wire.received().isEmpty)
        try Self.sendData(wire.api, token: try #require(device.string("token")))
        let answer = try wire.received()
        #expect(answer.contains("Emulator-Wait: satisfied\r\n"))
        #expect(answer.contains("\"kind\": \"delivered\""))
    }

    /// A delivery held back by a priority delay arrives when another client moves the virtual clock.
    @Test func onAVirtualClockAWaitEndsWhenTheClockIsMovedPastTheDelay() throws {
        var settings = EmulatorSettings()
        settings.normalPriorityLatencyMillis = 2000
        let wire = try Wire(emulator: Emulator(settings: settings))
        let device = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        try Self.sendData(wire.api, token: try #require(device.string("token")))
        try wire.send("GET \(Self.demo)/devices/a/inbox?waitFor=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try wire.received().isEmpty)
        _ = try wire.api.json("POST", "/emulator/v1/clock:advance", #"{"by":"2s"}"#)
        #expect(try wire.received().contains("Emulator-Wait: satisfied\r\n"))
    }

    @Test func aSatisfiedWaitAnswersAtOnceAndBadParametersAreRefused() throws {
        let api = InProcess()
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        let now = api.call("GET", Self.demo + "/events?kind=deviceCreated&waitFor=1")
        #expect(now.outcome.writesAnswer)
        #expect(now.header("Emulator-Wait") == "satisfied")
        for bad in ["waitFor=0", "waitFor=x", "waitFor=1&timeout=6m", "timeout=1s", "waitFor=2000&limit=1000"] {
            let refused = api.call("GET", Self.demo + "/events?\(bad)")
            #expect(refused.status == 400, "\(bad)")
        }
        #expect(api.call("GET", Self.demo + "/devices/a/inbox?waitFor=1&timeout=0s").header("Emulator-Wait") == "timeout")
    }

    @Test func aDeletedDeviceEndsItsInboxWaitWithTheError() throws {
        let wire = try Wire()
        _ = try wire.api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        try wire.send("GET \(Self.demo)/devices/a/inbox?waitFor=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        _ = try wire.api.json("DELETE", Self.demo + "/devices/a")
        #expect(try wire.received().hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    }
}

/// A wall clock for a wall-mode emulator that only moves when a test says so.
final class WallClock: Sendable {
    private let value = Atomic<Int64>(1_700_000_000_000)

    func read() -> Int64 { value.load(ordering: .relaxed) }
}
