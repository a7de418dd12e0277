// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import Testing

@testable import fcm_emu

/// `exec --attach` and `env` against a `serve` that runs on its own (free ports, no state): what the
/// command sends through the proxy lands in that serve's world, and a serve with no proxy is
/// refused with the fix before anything runs (docs/unmodified-apps.md).
@Suite("exec --attach and env against a running serve")
struct ExecAttachTests {
    typealias T = ExecTestSupport

    static var ready: Bool { ExecEndToEndTests.binaryBuilt && T.tool("curl") != nil }

    /// `fcm-emu <arguments>` with a clean environment.
    func fcmEmu(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try T.run([T.binary] + arguments, environment: T.cleanEnvironment(environment))
    }

    /// The serve's own answer to `GET path` on its control API, as JSON.
    func control(_ served: ServedEmulator, _ path: String) async throws -> JSONValue {
        let answer = try await ControlClient(base: served.url).get("/emulator/v1" + path)
        #expect(answer.status == 200, "\(path): \(answer.text)")
        return try JSONParser.parse(answer.body)
    }

    @Test(.enabled(if: ready)) func whatTheCommandSendsThroughTheProxyIsInTheServesWorld() async throws {
        let served = try ServedEmulator(["--port", "0", "--set", "proxyPort=0", "--set", "mcsPort=off"])
        defer { served.stop() }
        // The command makes a device, then sends to it as an SDK does: to fcm.googleapis.com, through
        // HTTPS_PROXY, trusting the CA exec hands it (the demo project takes any bearer token).
        let script = #"""
            device=$(curl -sS --fail -H 'Content-Type: application/json' -d '{"platform":"android"}' "$FCM_EMU_CONTROL_API/projects/demo-fcm-emu/devices")
            token=$(printf '%s\n' "$device" | sed -n 's/^  "token": "\([^"]*\)",*$/\1/p')
            echo "DEVICE=$(printf '%s\n' "$device" | sed -n 's/^  "id": "\([^"]*\)",*$/\1/p')"
            curl -sS --fail -o /dev/null -w 'SENT=%{http_code}\n' -H 'Authorization: Bearer sdk' -H 'Content-Type: application/json' \
              -d "{\"message\":{\"token\":\"$token\",\"data\":{\"via\":\"attach\"}}}" https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send
            echo "PROXY=$HTTPS_PROXY"; echo "KEY=$GOOGLE_APPLICATION_CREDENTIALS"
            echo "STRICT=$(curl -sS --fail -o /dev/null -w '%{http_code}' "$FCM_EMU_CONTROL_API/projects/attach-app")"
            """#
        let run = try fcmEmu(["exec", "--attach", served.readyFile, "--", "/bin/sh", "-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        let out = T.lines(run.stdout)
        #expect(out["SENT"] == "200" && out["PROXY"] == served.info["proxy"]?["url"]?.stringValue, "\(run.stdout)\n\(run.stderr)")
        // The files went with the command; the message stayed in the serve's world.
        #expect(out["KEY"].map { !$0.isEmpty && !FileManager.default.fileExists(atPath: $0) } == true)
        let inbox = try await control(served, "/projects/demo-fcm-emu/devices/\(out["DEVICE"] ?? "-")/inbox")
        let vias = inbox["deliveries"]?.arrayValue?.compactMap { $0["payload"]?["data"]?["via"]?.stringValue }
        #expect(vias == ["attach"], "\(inbox.encoded())")
        // --project is made on the serve when missing, as exec makes it in its own emulator.
        let project = try fcmEmu(["exec", "--attach", served.url, "--project", "attach-app", "--", "/bin/sh", "-c", #"echo "SENDER=$FCM_EMU_SENDER_ID""#])
        #expect(project.status == 0, "\(project.stderr)")
        let made = try await control(served, "/projects/attach-app")
        #expect(made["senderId"]?.stringValue == T.lines(project.stdout)["SENDER"] && made["senderId"]?.stringValue == FCMEmu.Exec.projectNumber("attach-app"))
        #expect(!project.stderr.contains("metadataProject"))
        // ADC from that serve's metadata server gets tokens for its metadataProject only: said, with the fix.
        let adc = try fcmEmu(["exec", "--attach", served.url, "--project", "attach-app", "--credentials", "metadata", "--", "true"])
        #expect(adc.status == 0 && adc.stderr.contains("--set metadataProject=attach-app"), "\(adc.stderr)")
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func aServeWithoutAProxyIsRefusedWithTheFix() async throws {
        let served = try ServedEmulator(["--port", "0", "--set", "mcsPort=off"])
        defer { served.stop() }
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let ran = state + "/ran"
        let exec = try fcmEmu(["exec", "--attach", served.readyFile, "--", "/bin/sh", "-c", "touch \"$0\"", ran])
        #expect(exec.status == 1 && exec.stderr.contains("no HTTPS proxy") && exec.stderr.contains("--set proxyPort=9094"), "\(exec.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ran))
        // env says the same, and prints nothing an eval would take for a working environment.
        let env = try fcmEmu(["env", "--emulator", served.url, "--dir", state + "/env"])
        #expect(env.status == 1 && env.stdout.isEmpty && env.stderr.contains("--set proxyPort=9094") && env.stderr.contains("--no-proxy"))
        let named = try fcmEmu(["env", "--emulator", served.url, "--dir", state + "/env", "--no-proxy", "--format", "dotenv"])
        #expect(named.status == 0, "\(named.stderr)")
        let vars = T.lines(named.stdout)
        #expect(vars["HTTPS_PROXY"] == nil && vars["FCM_EMU_URL"] == "'\(served.url)'" && vars["GOOGLE_APPLICATION_CREDENTIALS"] != nil)
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func envTakesTheReadyFileOfAServeWithItsProxy() async throws {
        let served = try ServedEmulator(["--port", "0", "--set", "proxyPort=0", "--set", "mcsPort=off"])
        defer { served.stop() }
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let env = try fcmEmu(["env", "--emulator", served.readyFile, "--dir", state, "--format", "dotenv"])
        #expect(env.status == 0, "\(env.stderr)")
        let vars = T.lines(env.stdout)
        #expect(vars["HTTPS_PROXY"] == "'\(served.info["proxy"]?["url"]?.stringValue ?? "-")'" && vars["FCM_EMU_URL"] == "'\(served.url)'")
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func aTargetThatIsNoServeIsSaidAndNothingRuns() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let ran = state + "/ran"
        try "{\"http\": {\"url\": \"http://127.0.0.1:1\"}}".write(toFile: state + "/stale.json", atomically: false, encoding: .utf8)
        try "not json".write(toFile: state + "/other.json", atomically: false, encoding: .utf8)
        let cases: [(String, String)] = [
            (state + "/missing.json", "no ready file at"), (state, "is not a ready file"), ("/dev/zero", "is not a ready file"),
            (state + "/other.json", "is not a ready file"), (state + "/stale.json", "which did not answer"),
        ]
        for (target, said) in cases {
            let run = try fcmEmu(["exec", "--attach", target, "--", "/bin/sh", "-c", "touch \"$0\"", ran])
            #expect(run.status == 1 && run.stderr.contains(said), "\(target): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: ran))
        let mixed = try fcmEmu(["exec", "--attach", state + "/stale.json", "--set", "clockSpeed=2", "--", "true"])
        #expect(mixed.status == 64 && mixed.stderr.contains("--attach uses the running one"))
    }
}
