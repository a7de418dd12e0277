// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMTesting
import FCMTransport
import Testing

/// Android check-in and GCM registration with the bytes firebase-messaging 0.4.5 sends
/// (docs/reference/receivers-protocols.md §1–2).
@Suite("Real receivers: check-in and register3")
struct CheckinFrontTests {
    let api = InProcess()

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    /// A first check-in: Chrome 94 on Linux, stable channel, version 3, user 0.
    static let firstCheckin = hex("22 16 60 03 6a 12 08 03 12 0c") + Array("94.0.4606.51".utf8) + hex("18 01 70 03 b0 01 00")

    func checkin(_ body: [UInt8]) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/checkin", headers: [("Host", "android.clients.google.com"), ("Content-Type", "application/x-protobuf")],
                body: body))
    }

    func register(_ authorization: String, _ form: String) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/c2dm/register3",
                headers: [
                    ("Host", "android.clients.google.com"), ("Authorization", authorization), ("Content-Type", "application/x-www-form-urlencoded"),
                ], body: form))
    }

    /// The response's id and token, read as firebase-messaging reads them (fixed64 fields 7 and 8).
    func credentials(_ response: HTTPResponse) throws -> (UInt64, UInt64) {
        var id: UInt64?
        var token: UInt64?
        var statsOk = false
        for field in try ProtobufReader.fields(response.body[...]) {
            if field.number == 1 { statsOk = field.bool == true }
            if field.number == 7, case .fixed64(let v) = field.value { id = v }
            if field.number == 8, case .fixed64(let v) = field.value { token = v }
        }
        #expect(statsOk)
        return (try #require(id), try #require(token))
    }

    @Test func aCheckInGivesAnIdAndTokenAndTheSamePairChecksInAgain() throws {
        let first = checkin(Self.firstCheckin)
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "application/x-protobuf")
        let (id, token) = try credentials(first)
        #expect(id < 1 << 63)
        // Fields in number order, as protobuf writes them: id (2), checkin (4), token (13), version, user.
        var again = ProtobufWriter()
        again.int64(2, Int64(id))
        again.bytes(4, Self.hex("60 03"))
        again.fixed64(13, token)
        again.int32(14, 3)
        let second = checkin(again.bytes)
        #expect(try credentials(second) == (id, token))
        var wrong = ProtobufWriter()
        wrong.int64(2, Int64(id))
        wrong.bytes(4, Self.hex("60 03"))
        wrong.fixed64(13, token &+ 1)
        #expect(checkin(wrong.bytes).status == 401)
        #expect(checkin([0xFF, 0xFF]).status == 400)
        #expect(checkin(Self.hex("70 03")).status == 400)  // no `checkin`
    }

    @Test func register3AnswersATokenOrGCMsErrorCodes() throws {
        let (id, token) = try credentials(checkin(Self.firstCheckin))
        let form = "app=org.chromium.linux&X-subtype=wp%3Areceiver.push.com%23abc&device=\(id)&sender=BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3Rzo"
        let ok = register("AidLogin \(id):\(token)", form)
        #expect(ok.status == 200)
        let text = ok.bodyText
        #expect(text.hasPrefix("token="))
        #expect(!text.hasSuffix("\n"))
        let gcm = String(text.dropFirst(6))
        #expect(gcm.contains(":APA91b"))
        #expect(register("AidLogin \(id):\(token)", form).bodyText == text)
        #expect(register("AidLogin \(id):\(token &+ 1)", form).bodyText == "Error=AUTHENTICATION_FAILED")
        #expect(register("Bearer x", form).status == 401)
        #expect(register("AidLogin \(id):\(token)", "app=x").bodyText == "Error=INVALID_PARAMETERS")
        // Each refusal, status 200 or not, is a `refused` event of the check-in API.
        let refused = try api.json("GET", "/emulator/v1/events?kind=refused").at("events")?.arrayValue ?? []
        #expect(refused.map { $0.string("api") } == ["checkin", "checkin", "checkin"])
        #expect(refused.map { $0.string("code") } == ["AUTHENTICATION_FAILED", "AUTHENTICATION_FAILED", "INVALID_PARAMETERS"])
    }
}
