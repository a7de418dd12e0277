// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMSnapshot
import FCMTesting
import FCMTransport
import Foundation
import Testing

/// `POST /emulator/v1:export` and `:import`: by name under the state directory, or as a tar.
@Suite struct SnapshotAPITests {
    private static func stateDirectory() throws -> String { try ScratchDirectory("snapshot-api").path }

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
            HTTPRequest(
                method: "POST", target: "/emulator/v1:import", headers: [("Content-Type", "application/x-tar")],
                body: Array(damaged.prefix(2000))))
        #expect(refused.status == 400)
        #expect(target.emulator.device(token: token) != nil)
        // Bytes after the end marker were ignored: now the archive is refused, naming them.
        let trailed = target.responder.respond(
            HTTPRequest(
                method: "POST", target: "/emulator/v1:import", headers: [("Content-Type", "application/x-tar")],
                body: tar.body + Array("not a snapshot's".utf8) + [UInt8](repeating: 0, count: 496)))
        #expect(trailed.status == 400)
        #expect(trailed.bodyText.contains("bytes follow the archive's end marker"))
        // `?format=tar` alone no longer makes a body an import: a page's text/plain POST needs no preflight.
        let untyped = target.responder.respond(HTTPRequest(method: "POST", target: "/emulator/v1:import?format=tar", body: tar.body))
        #expect(untyped.status == 415)
    }

    /// A snapshot carries the fronts' keys: an access token and a service-account key file of the
    /// exporting emulator keep working on another one that imports it ("Restarts").
    @Test func accessTokensAndKeyFilesWorkAfterImportElsewhere() throws {
        let source = InProcess(Emulator(), fronts: FrontConfiguration(authMode: .strict, stateDirectory: nil))
        _ = try source.json("POST", "/emulator/v1/projects", #"{"id":"strict-app","number":"111222333444"}"#, status: 201)
        let device = try source.json("POST", "/emulator/v1/projects/strict-app/devices", #"{"platform":"web"}"#, status: 201)
        let bearer = try #require(
            try source.json("POST", "/emulator/v1/projects/strict-app/accessTokens", status: 201).string("accessToken"))
        let keyFile = try source.json("GET", "/emulator/v1/projects/strict-app/serviceAccount")
        let tar = source.call("POST", "/emulator/v1:export?format=tar")
        #expect(tar.status == 200)

        let target = InProcess(Emulator(), fronts: FrontConfiguration(authMode: .strict, stateDirectory: nil))
        let send = #"{"message":{"token":"\#(try #require(device.string("token")))","data":{"k":"v"}}}"#
        let before = target.call("POST", "/v1/projects/demo-fcm-emu/messages:send", send, headers: [("Authorization", "Bearer \(bearer)")])
        #expect(before.status == 401 || before.status == 404)
        let imported = target.responder.respond(
            HTTPRequest(
                method: "POST", target: "/emulator/v1:import?format=tar", headers: [("Content-Type", "application/x-tar")], body: tar.body))
        #expect(imported.status == 200, "\(imported.bodyText)")
        let sent = target.call("POST", "/v1/projects/strict-app/messages:send", send, headers: [("Authorization", "Bearer \(bearer)")])
        #expect(sent.status == 200, "\(sent.bodyText)")
        // The key file the target hands out is the source's: same key id, same private key.
        let again = try target.json("GET", "/emulator/v1/projects/strict-app/serviceAccount")
        #expect(again.string("private_key_id") == keyFile.string("private_key_id"))
        #expect(again.string("private_key") == keyFile.string("private_key"))
    }

    /// A damaged credentials line refuses the whole snapshot, naming the file and line.
    @Test func aBadCredentialLineRefusesTheSnapshot() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let source = Self.api(state: state)
        _ = try source.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"android","name":"kept"}"#, status: 201)
        _ = try source.json("GET", "/emulator/v1/projects/demo-fcm-emu/serviceAccount")
        _ = try source.json("POST", "/emulator/v1:export", #"{"name":"keys"}"#)
        let path = state + "/snapshots/keys/credentials.jsonl"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix(#"{"type":"accessTokenKey""#))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        var lines = text.split(separator: "\n").map(String.init)
        // As long as what it replaces, so the manifest's byte count still holds.
        lines[1] = lines[1].replacingOccurrences(of: "BEGIN PRIVATE KEY", with: "BEGIN NOTHING XYZ")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)

        let other = InProcess(Emulator(), fronts: FrontConfiguration(authMode: .lax, stateDirectory: state))
        let answer = other.call("POST", "/emulator/v1:import", #"{"name":"keys"}"#)
        #expect(answer.status == 400)
        #expect(answer.bodyText.contains("credentials.jsonl"))
        #expect(answer.bodyText.contains("line 2"))
        #expect((try? other.emulator.device("kept", projectId: DemoProject.id)) == nil)
    }
}

/// An export that runs out of descriptors (or memory, or disk) is the server's trouble: 503
/// UNAVAILABLE, not a 400. The errno is injected through the fault hook.
@Suite struct SnapshotExhaustionTests {
    @Test func outOfDescriptorsIs503() throws {
        let state = try ScratchDirectory("snapshot-api").path
        defer {
            SnapshotReplacement.faultHook.withLock { $0 = nil }
            try? FileManager.default.removeItem(atPath: state)
        }
        let target = state + "/snapshots/full"
        SnapshotReplacement.faultHook.withLock {
            $0 = { _, path in if path == target { throw SnapshotIOError("open", path, EMFILE) } }
        }
        let api = InProcess(Emulator(), fronts: FrontConfiguration(authMode: .lax, stateDirectory: state))
        let answer = try api.json("POST", "/emulator/v1:export", #"{"name":"full"}"#, status: 503)
        #expect(answer.at("error.status") == .string("UNAVAILABLE"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/snapshots").isEmpty)
    }
}
