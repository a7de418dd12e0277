// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import Foundation
import Testing

/// `POST /emulator/v1:export` and `:import`: by name under the state directory, or as a tar.
@Suite struct SnapshotAPITests {
    private static func stateDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "fcm-snapshot-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func api(state: String?) -> InProcess {
        InProcess(Emulator(), fronts: FrontConfiguration(authMode: .lax, stateDirectory: state))
    }

    @Test func exportAndImportByName() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let source = Self.api(state: state)
        let device = try source.json(
            "POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"android","state":"offline"}"#, status: 201)
        let token = try #require(device["token"]?.stringValue)
        let exported = try source.json("POST", "/emulator/v1:export", #"{"name":"nightly","include":["events"]}"#)
        #expect(exported.at("manifest.formatVersion") == .number("1"))
        #expect(FileManager.default.fileExists(atPath: state + "/snapshots/nightly/manifest.json"))

        let target = Self.api(state: state)
        _ = try target.json("POST", "/emulator/v1:import", #"{"name":"nightly","clock":"wall"}"#)
        #expect(target.emulator.device(token: token) != nil)
        _ = try target.json("POST", "/emulator/v1:import", #"{"name":"nope"}"#, status: 404)
    }

    @Test func namesNeverReachOtherPaths() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let api = Self.api(state: state)
        for name in ["../escape", "/etc/passwd", "..", ".hidden", "a/b", String(repeating: "x", count: 65), ""] {
            let body = JSONValue.object([("name", .string(name))]).encoded()
            _ = try api.json("POST", "/emulator/v1:export", body, status: 400)
            _ = try api.json("POST", "/emulator/v1:import", body, status: 400)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).allSatisfy { $0 != "escape" })
        // Without a state directory there is no folder to name snapshots in.
        _ = try Self.api(state: nil).json("POST", "/emulator/v1:export", #"{"name":"nightly"}"#, status: 409)
    }

    @Test func tarRoundTrip() throws {
        let source = Self.api(state: nil)
        let device = try source.json(
            "POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"ios","state":"background"}"#, status: 201)
        let token = try #require(device["token"]?.stringValue)
        let tar = source.call("POST", "/emulator/v1:export", headers: [("Accept", "application/x-tar")])
        #expect(tar.status == 200)
        #expect(tar.header("Content-Type") == "application/x-tar")
        #expect(tar.body.count % 512 == 0)

        let target = Self.api(state: nil)
        let imported = target.responder.respond(
            HTTPRequest(method: "POST", target: "/emulator/v1:import", headers: [("Content-Type", "application/x-tar")], body: tar.body))
        #expect(imported.status == 200, "\(imported.bodyText)")
        #expect(target.emulator.device(token: token) != nil)

        // A damaged archive is refused and changes nothing.
        var damaged = tar.body
        damaged[600] ^= 0xFF
        let refused = target.responder.respond(
            HTTPRequest(method: "POST", target: "/emulator/v1:import?format=tar", body: Array(damaged.prefix(2000))))
        #expect(refused.status == 400)
        #expect(target.emulator.device(token: token) != nil)
    }
}
