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

/// The event stream in process: what it sends, its filters, and the helpers other suites read
/// streams with. Nothing here sleeps.
@Suite("Event stream")
struct EventStreamTests {
    static let demo = "/emulator/v1/projects/\(DemoProject.id)"

    /// The `data:` payloads of the frames in `text`, parsed.
    static func events(_ text: String) throws -> [JSONValue] {
        try text.components(separatedBy: "\n").filter { $0.hasPrefix("data: {\"sequence\"") }.map {
            try JSONParser.parse(Array($0.dropFirst(6).utf8))
        }
    }

    static func stream(_ api: InProcess, _ path: String, headers: [(String, String)] = []) throws -> (HTTPResponse, StreamingBody) {
        let response = api.call("GET", path, headers: headers)
        guard case .live(.stream(let body)) = response.outcome else {
            Issue.record("no stream: \(response.status) \(response.bodyText)")
            throw CancellationError()
        }
        return (response, body)
    }

    /// A data message to `token` through messages:send.
    static func sendData(_ api: InProcess, token: String) throws {
        _ = try api.json("POST", "/v1/projects/\(DemoProject.id)/messages:send", #"{"message":{"token":"\#(token)","data":{"k":"v"}}}"#)
    }

    static func read(_ body: StreamingBody) -> String {
        var text = ""
        while true {
            let (bytes, more) = body.next()
            text += String(decoding: bytes, as: UTF8.self)
            if !more { return text }
        }
    }

    @Test func streamsNewEventsThatMatchItsFilters() throws {
        let api = InProcess()
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        let (response, body) = try Self.stream(api, Self.demo + "/events:stream?kind=stateChanged")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(String(decoding: body.first, as: UTF8.self) == "retry: 2000\nevent: ready\nid: 1\ndata: {\"next\":2}\n\n")
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"ios","name":"b"}"#, status: 201)
        _ = try api.json("PATCH", Self.demo + "/devices/b", #"{"state":"offline"}"#)
        let events = try Self.events(Self.read(body))
        #expect(events.map { $0.string("kind") } == ["stateChanged"])
        #expect(events.first?.string("project") == DemoProject.id)
        #expect(events.first?.string("detail") == "foreground→offline")
        #expect(Self.read(body).isEmpty)
    }

    @Test func filtersByTokenAndRefusesUnknownKinds() throws {
        let api = InProcess()
        let a = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"b"}"#, status: 201)
        let token = try #require(a.string("token"))
        let (_, body) = try Self.stream(api, "/emulator/v1/events:stream?token=\(token)")
        _ = try api.json("PATCH", Self.demo + "/devices/b", #"{"state":"offline"}"#)
        _ = try api.json("PATCH", Self.demo + "/devices/a", #"{"state":"background"}"#)
        #expect(try Self.events(Self.read(body)).map { $0.string("device") } == ["0"])
        let refused = api.call("GET", "/emulator/v1/events:stream?kind=nope")
        #expect(refused.status == 400)
        #expect(refused.outcome.writesAnswer)
    }

    @Test func resumesAfterLastEventIdAndReplaysFromTheOldestWithMinusOne() throws {
        let api = InProcess()
        for name in ["a", "b", "c"] {
            _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"web","name":"\#(name)"}"#, status: 201)
        }
        // 0 projectCreated, 1–3 deviceCreated.
        let (_, resumed) = try Self.stream(api, "/emulator/v1/events:stream", headers: [("Last-Event-ID", "1")])
        #expect(try Self.events(Self.read(resumed)).map { $0.at("sequence")?.int64Value } == [2, 3])
        let (_, all) = try Self.stream(api, "/emulator/v1/events:stream?lastEventId=-1")
        #expect(try Self.events(Self.read(all)).count == 4)
        #expect(api.call("GET", "/emulator/v1/events:stream?lastEventId=x").status == 400)
    }

    /// A reader the ring overtook is told how many it missed, then goes on from the oldest kept.
    @Test func aReaderThatFellBehindTheLogIsToldItLagged() throws {
        var settings = EmulatorSettings()
        settings.maxEvents = 8
        let api = InProcess(Emulator(settings: settings))
        let (_, body) = try Self.stream(api, "/emulator/v1/events:stream")
        _ = try api.json("POST", Self.demo + "/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        for state in ["offline", "foreground", "offline", "foreground", "offline", "foreground", "offline", "foreground"] {
            _ = try api.json("PATCH", Self.demo + "/devices/a", #"{"state":"\#(state)"}"#)
        }
        let text = Self.read(body)
        #expect(text.hasPrefix("event: lagged\ndata: {\"missed\":1}\n\n"))
        #expect(try Self.events(text).count == 8)
    }

    @Test func theStreamAndItsWaitsAreCountedAndLimited() throws {
        let api = InProcess()
        var streams: [StreamingBody] = []
        for _ in 0..<api.responder.live.maxStreams { streams.append(try Self.stream(api, "/emulator/v1/events:stream").1) }
        let refused = api.call("GET", "/emulator/v1/events:stream")
        #expect(refused.status == 429)
        #expect(refused.bodyText.contains("Too many open event streams"))
        streams.removeAll()
        #expect(api.responder.live.openStreams == 0)
    }
}
