// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import Testing

@testable import fcm_emu

/// `fcm-emu why` against a `serve` that runs on its own (free ports, no state): the story of a
/// device by name, by token and through the ready file, and a clear exit 1 for an unknown one
/// (docs/control-api.md, "fcm-emu why").
@Suite("fcm-emu why against a running serve")
struct WhyCommandTests {
    typealias T = ExecTestSupport

    func fcmEmu(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try T.run([T.binary] + arguments, environment: T.cleanEnvironment())
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func aTTLZeroSendToAnOfflineDeviceIsToldNewestFirst() async throws {
        let served = try ServedEmulator(["--port", "0", "--set", "mcsPort=off"])
        defer { served.stop() }
        let client = try ControlClient(base: served.url)
        let made = try await client.send(
            "POST", "/emulator/v1/projects/demo-fcm-emu/devices", json: Array(#"{"platform":"android","name":"away","state":"offline"}"#.utf8))
        #expect(made.status == 201, "\(made.text)")
        let token = try #require(try JSONParser.parse(made.body)["token"]?.stringValue)
        let message = #"{"message":{"token":"\#(token)","android":{"ttl":"0s"},"data":{"a":"b"}}}"#
        let sent = try await client.send(
            "POST", "/v1/projects/demo-fcm-emu/messages:send", json: Array(message.utf8), headers: [("Authorization", "Bearer any")])
        #expect(sent.status == 200, "\(sent.text)")
        let messageId = try #require(try JSONParser.parse(sent.body)["name"]?.stringValue?.split(separator: "/").last).description

        for (device, emulator) in [("away", served.url), (token, served.readyFile)] {
            let why = try fcmEmu(["why", device, "--emulator", emulator])
            #expect(why.status == 0, "\(why.stderr)")
            let lines = why.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasSuffix("(away): offline, 0 stored") == true, "\(why.stdout)")
            #expect(lines.contains("token \(token)") && lines.contains("story: discarded: TTL 0 while the device was offline"), "\(why.stdout)")
            let outcomes = lines.drop { $0 != "outcomes, newest first:" }.dropFirst()
            #expect(outcomes.count == 2, "\(why.stdout)")
            #expect(outcomes.first?.contains("discarded  \(messageId)  discarded: TTL 0 while the device was offline") == true, "\(why.stdout)")
            #expect(outcomes.last?.contains("accepted   \(messageId)  accepted (v1): sent to its token") == true, "\(why.stdout)")
        }

        let unknown = try fcmEmu(["why", "nobody", "--control", served.url])
        #expect(unknown.status == 1 && unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("no device 'nobody' in project 'demo-fcm-emu'"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("a device id, a device name, a registration token"), "\(unknown.stderr)")
        let otherProject = try fcmEmu(["why", "away", "--project", "elsewhere", "--emulator", served.url])
        #expect(otherProject.status == 1 && otherProject.stderr.contains("--project"), "\(otherProject.stderr)")
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func helpTeachesWithAnExample() throws {
        let help = try fcmEmu(["why", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("fcm-emu why 3") && help.stdout.contains("--emulator"), "\(help.stdout)")
    }

    @Test func aNameWithASlashOrASpaceStaysOnePathSegment() {
        #expect(WhyStory.path(device: "my phone/2", project: "p") == "/emulator/v1/projects/p/devices/my%20phone%2F2/outcomes")
        #expect(WhyStory.pathSegment("abc:APA91b-x_y.z~") == "abc:APA91b-x_y.z~")
        let text = WhyStory.lines(.object([("device", .object([("id", .string("7")), ("state", .string("doze"))])), ("stored", .int(2)),
            ("story", .string("held: device in Doze")), ("outcomes", .array([]))]))
        #expect(text == ["device 7: doze, 2 stored", "story: held: device in Doze"])
    }
}
