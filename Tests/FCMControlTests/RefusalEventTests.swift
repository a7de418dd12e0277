// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMJSON
import FCMTesting
@testable import FCMTransport
import FCMXMPP
import Foundation
import Testing

/// Every refused request is a `refused` event with its API, project,
/// status, code, target and reason; fault rules answer in their author's words and count firings.
@Suite("Refused requests and fault rules in the event log")
struct RefusalEventTests {
    static let send = "/v1/projects/\(DemoProject.id)/messages:send"

    static func legacy(_ api: InProcess, _ body: String, key: String = DemoProject.serverKey) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/fcm/send", headers: [("Authorization", "key=\(key)"), ("Content-Type", "application/json")],
                body: body))
    }

    /// Logs in to CCS as the demo project and sends one downstream message stanza.
    static func xmppSend(_ emulator: Emulator, _ json: String) -> String {
        var connection = CCSConnection(emulator: emulator, configuration: CCSConnection.Configuration())
        var written = ""
        func feed(_ text: String) {
            for case .write(let out) in connection.receive(Array(text.utf8)) { written += out }
        }
        let stream = "version='1.0' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"
        feed("<?xml version='1.0'?><stream:stream to='fcm.googleapis.com' " + stream)
        let credentials = Data("\0\(DemoProject.number)@fcm.googleapis.com\0\(DemoProject.serverKey)".utf8).base64EncodedString()
        feed("<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(credentials)</auth>")
        feed("<stream:stream to='gcm.googleapis.com' " + stream)
        feed("<iq type='set' id='b1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>r1</resource></bind></iq>")
        feed("<message id='s1'><gcm xmlns='google:mobile:data'>\(json)</gcm></message>")
        return written
    }

    /// An invalid v1, legacy and XMPP message each leave a `refused`
    /// event, with the reason the client was given, on the event stream.
    @Test func invalidMessagesOnEachFrontAreRefusedEventsOnTheStream() throws {
        let api = InProcess()
        let (_, body) = try EventStreamTests.stream(api, "/emulator/v1/events:stream?kind=refused")

        let v1 = api.call("POST", Self.send, #"{"message":{"token":"not-a-token","data":{"a":"b"}}}"#)
        #expect(v1.status == 400)
        let v1Message = try #require(try JSONParser.parse(v1.body).string("error.message"))
        let legacy = Self.legacy(api, #"{"to":"not-a-token","data":{"a":"b"}}"#)
        #expect(try JSONParser.parse(legacy.body).string("results.0.error") == "InvalidRegistration")
        let xmpp = Self.xmppSend(api.emulator, #"{"to":"not-a-token","message_id":"m1","data":{"a":"b"}}"#)
        #expect(xmpp.contains("BAD_REGISTRATION"))

        let events = try EventStreamTests.events(EventStreamTests.read(body))
        try #require(events.count == 3, "\(events)")
        let (e1, e2, e3) = (events[0], events[1], events[2])
        #expect(e1.string("kind") == "refused")
        #expect(e1.string("api") == "v1")
        #expect(e1.string("project") == DemoProject.id)
        #expect(e1.at("status") == .int(400))
        #expect(e1.string("code") == "INVALID_ARGUMENT")
        #expect(e1.string("target") == "not-a-token")
        #expect(e1.string("detail") == v1Message)

        #expect(e2.string("api") == "legacy")
        #expect(e2.string("project") == DemoProject.id)
        #expect(e2.at("status") == .int(200))
        #expect(e2.string("code") == "InvalidRegistration")
        #expect(e2.string("target") == "not-a-token")
        #expect(e2.string("detail")?.isEmpty == false)

        #expect(e3.string("api") == "xmpp")
        #expect(e3.string("project") == DemoProject.id)
        #expect(e3.at("status") == nil)
        #expect(e3.string("code") == "BAD_REGISTRATION")
        #expect(e3.string("target") == "not-a-token")
        #expect(xmpp.contains(try #require(e3.string("detail"))))

        // The list answer and the project's own view carry them too.
        let listed = try api.json("GET", "/emulator/v1/projects/\(DemoProject.id)/events?kind=refused")
        #expect(listed.at("events")?.arrayValue?.count == 3)
        #expect(listed.string("events.0.project") == DemoProject.id)
    }

    /// Refusals no front notes itself are read from the answer: a legacy 400 in plain text, a bad
    /// server key's HTML page, a batch part, an IID token, a body over the limit.
    @Test func everyFrontsErrorAnswersAreRecorded() throws {
        let api = InProcess()
        let missingTo = Self.legacy(api, #"{"data":{"a":"b"}}"#)
        #expect(missingTo.status == 400)
        let badKey = Self.legacy(api, #"{"to":"x"}"#, key: "wrong")
        #expect(badKey.status == 401)
        let boundary = "b0"
        let part = "POST \(Self.send) HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{\"message\":{\"topic\":\"bad topic!\"}}\r\n"
        let batch = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/batch",
                headers: [("Content-Type", "multipart/mixed; boundary=\(boundary)"), ("Authorization", "Bearer owner")],
                body: "--\(boundary)\r\nContent-Type: application/http\r\nContent-ID: 1\r\n\r\n\(part)--\(boundary)--\r\n"))
        #expect(batch.status == 200)
        let iid = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/iid/v1:batchAdd",
                headers: [("Authorization", "key=\(DemoProject.serverKey)"), ("Content-Type", "application/json")],
                body: #"{"to":"/topics/news","registration_tokens":["not-a-token"]}"#))
        #expect(iid.status == 200)

        let events = try api.json("GET", "/emulator/v1/events?kind=refused").at("events")?.arrayValue ?? []
        try #require(events.count == 4, "\(events)")
        #expect(events[0].string("api") == "legacy")
        #expect(events[0].at("status") == .int(400))
        #expect(events[0].string("detail") == missingTo.bodyText.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(events[1].at("status") == .int(401))
        #expect(events[1].string("detail")?.contains("Invalid (legacy) Server-key") == true)
        #expect(events[2].string("api") == "batch")
        #expect(events[2].string("project") == DemoProject.id)
        #expect(events[2].string("code") == "INVALID_ARGUMENT")
        #expect(events[2].string("target") == "/topics/bad topic!")
        #expect(events[3].string("api") == "iid")
        #expect(events[3].string("code") == "INVALID_ARGUMENT")
        #expect(events[3].string("target") == "not-a-token")
    }

    /// A flood of refusals of huge requests keeps each event small: target and reason are cut.
    @Test func longTargetsAndReasonsAreCut() throws {
        let api = InProcess()
        let token = String(repeating: "x", count: 20_000)
        #expect(api.call("POST", Self.send, #"{"message":{"token":"\#(token)"}}"#).status == 400)
        let event = try #require(try api.emulator.events(EventQuery(kinds: [.refused])).last)
        let target = try #require(event.call?.target)
        #expect(target.utf8.count <= Refusal.maxTextBytes)
        #expect(target.hasSuffix("…"))
        #expect(Refusal.truncated(String(repeating: "é", count: 400)).utf8.count <= Refusal.maxTextBytes)
    }

    /// A rule reads back as posted, with its id and `fired`; its events carry the project
    /// and say what it did in the posted words.
    @Test func faultRulesRoundTripAndCountFirings() throws {
        let api = InProcess()
        let posted = #"{"id":"r1","match":{"api":"v1","route":"messages:send","count":2},"action":{"status":503,"retryAfter":"10s"}}"#
        let created = try api.json("POST", "/emulator/v1/faults", posted, status: 201)
        guard case .object(let pairs) = try JSONParser.parse(posted) else { throw CancellationError() }
        #expect(created == .object(pairs + [("fired", .int(0))]))
        #expect(try api.json("GET", "/emulator/v1/faults/r1") == .object(pairs + [("fired", .int(0))]))

        for _ in 0..<3 { _ = api.call("POST", Self.send, #"{"message":{"topic":"news"}}"#) }
        #expect(try api.json("GET", "/emulator/v1/faults/r1") == .object(pairs + [("fired", .int(2))]))
        #expect(try api.json("GET", "/emulator/v1/faults").at("faults.0") == .object(pairs + [("fired", .int(2))]))
        _ = try api.json("GET", "/emulator/v1/faults/nope", status: 404)

        let faults = try api.json("GET", "/emulator/v1/projects/\(DemoProject.id)/events?kind=faultInjected")
        let list = faults.at("events")?.arrayValue ?? []
        #expect(list.count == 2)
        #expect(list.first?.string("project") == DemoProject.id)
        #expect(list.first?.string("detail") == "rule r1: status 503, retryAfter 10s")
        // The answers the rule gave are refusals too, in v1's words.
        let refused = try api.json("GET", "/emulator/v1/events?kind=refused").at("events")?.arrayValue ?? []
        #expect(refused.map { $0.string("code") } == ["UNAVAILABLE", "UNAVAILABLE"])
    }

    /// Error names from any dialect come back as written; a rule made in code reads in words too.
    @Test func postedNamesComeBackAsPosted() throws {
        let api = InProcess()
        let posted = #"{"id":"q","action":{"error":"DeviceMessageRateExceeded","retryAfter":30}}"#
        _ = try api.json("POST", "/emulator/v1/faults", posted, status: 201)
        #expect(try api.json("GET", "/emulator/v1/faults/q").string("action.error") == "DeviceMessageRateExceeded")
        #expect(try api.json("GET", "/emulator/v1/faults/q").at("match") == nil)
        #expect(FaultRule(id: "c", action: .status(503, retryAfterSeconds: 10)).summary == "status 503, retryAfter 10s")
        #expect(FaultRule(id: "c", action: .reset).summary == "reset")
    }
}
