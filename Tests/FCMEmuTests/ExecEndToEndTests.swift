// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import fcm_emu

/// The built `fcm-emu exec` and `env`, each run on a fresh emulator with free ports and a state
/// directory of its own.
@Suite("exec and env, run whole")
struct ExecEndToEndTests {
    typealias T = ExecTestSupport

    static var binaryBuilt: Bool { FileManager.default.isExecutableFile(atPath: T.binary) }

    /// `fcm-emu exec <options> -- sh -c <script>` with `environment` added to a clean one.
    func exec(
        _ options: [String], _ script: String, arguments: [String] = [], environment: [String: String] = [:], state: String
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        try T.run(
            [T.binary, "exec", "--set", "stateDir=\(state)"] + options + ["--", "/bin/sh", "-c", script] + arguments,
            environment: T.cleanEnvironment(environment))
    }

    @Test(.enabled(if: binaryBuilt)) func theProjectsOwnKeyAndSenderIdAreHanded() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let run = try exec(
            ["--project", "exec-keys"], #"echo "SENDER=$FCM_EMU_SENDER_ID"; echo "KEY=$FCM_EMU_SERVER_KEY"; "#
                + #"echo "PROJECT=$(curl -s "$FCM_EMU_CONTROL_API/projects/exec-keys" | tr -d ' \n')""#, state: state)
        #expect(run.status == 0, "\(run.stderr)")
        let out = T.lines(run.stdout)
        let project = out["PROJECT"] ?? ""
        #expect(out["SENDER"]?.isEmpty == false && project.contains(#""senderId":"\#(out["SENDER"] ?? "-")""#))
        #expect(out["KEY"]?.isEmpty == false && project.contains(#""serverKeys":["\#(out["KEY"] ?? "-")""#))
        #expect(out["KEY"] != "AAAAdemo000:APA91bDEMO-fcm-emu-server-key-for-local-testing-only" && out["SENDER"] != "123456789012")
    }

    @Test(.enabled(if: binaryBuilt)) func theWorkDirectoryIsPrivateAndNotOneSomeoneMadeFirst() throws {
        let state = try T.temporaryDirectory()
        let tmp = try T.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: state)
            try? FileManager.default.removeItem(atPath: tmp)
        }
        // The shell makes the old predictable name with its own pid, then becomes fcm-emu (same pid).
        let script = #"""
            echo "KEY=$GOOGLE_APPLICATION_CREDENTIALS"; echo "PARENT=$PPID"
            echo "DIRMODE=$(stat -c %a "$(dirname "$GOOGLE_APPLICATION_CREDENTIALS")")"; echo "KEYMODE=$(stat -c %a "$GOOGLE_APPLICATION_CREDENTIALS")"
            echo "PLANTED=$(ls -A "$TMPDIR/fcm-emu-exec-$PPID" | wc -l)"
            """#
        let run = try T.run(
            [
                "/bin/sh", "-c", #"mkdir -m 777 "$TMPDIR/fcm-emu-exec-$$" && exec "$0" exec --set stateDir="$1" -- /bin/sh -c "$2""#,
                T.binary, state, script,
            ], environment: T.cleanEnvironment(["TMPDIR": tmp]))
        #expect(run.status == 0, "\(run.stderr)")
        let out = T.lines(run.stdout)
        let key = out["KEY"] ?? ""
        #expect(key.hasPrefix(tmp + "/fcm-emu-exec-") && !key.hasPrefix(tmp + "/fcm-emu-exec-\(out["PARENT"] ?? "-")/"))
        #expect(out["DIRMODE"] == "700" && out["KEYMODE"] == "600")
        #expect(out["PLANTED"] == "0")
        // Removed when the command ends; the planted one is left as it was.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == ["fcm-emu-exec-\(out["PARENT"] ?? "-")"])
    }

    @Test(.enabled(if: binaryBuilt && T.tool("curl") != nil && T.systemBundle != nil))
    func caBundlesTheEnvironmentNamesAreMergedAndTheEmulatorIsReached() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let system = try #require(T.systemBundle)
        let preset = ["SSL_CERT_FILE": system, "REQUESTS_CA_BUNDLE": system, "CURL_CA_BUNDLE": system, "NODE_EXTRA_CA_CERTS": system]
        let script = #"""
            curl -sS --fail -o /dev/null -w 'CURL=%{http_code}\n' "$FCM_EMU_HTTPS_URL/emulator/v1/health"
            curl -sS --fail -o /dev/null -w 'PROXIED=%{http_code}\n' "https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send" \
              -H 'Authorization: Bearer x' -d '{"message":{"topic":"t"}}'
            echo "SSL_CERT_FILE=$SSL_CERT_FILE"; echo "NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS"
            cp "$SSL_CERT_FILE" "$0/SSL_CERT_FILE"; cp "$REQUESTS_CA_BUNDLE" "$0/REQUESTS_CA_BUNDLE"
            cp "$CURL_CA_BUNDLE" "$0/CURL_CA_BUNDLE"; cp "$NODE_EXTRA_CA_CERTS" "$0/NODE_EXTRA_CA_CERTS"; cp "$FCM_EMU_CA" "$0/emulator-ca.pem"
            """#
        let run = try T.run(
            ["/bin/sh", "-c", #"exec "$0" exec --set stateDir="$1" -- /bin/sh -c "$2" "$1""#, T.binary, state, script],
            environment: T.cleanEnvironment(preset))
        #expect(run.status == 0, "\(run.stderr)")
        let out = T.lines(run.stdout)
        #expect(out["CURL"] == "200" && out["PROXIED"] == "200")
        #expect(out["SSL_CERT_FILE"] != system && out["NODE_EXTRA_CA_CERTS"] != system)
        let ca = try String(contentsOfFile: state + "/emulator-ca.pem", encoding: .utf8)
        let theirs = try String(contentsOfFile: system, encoding: .utf8)
        for name in PresetEnvironment.caVariables {
            let merged = try String(contentsOfFile: state + "/" + name, encoding: .utf8)
            #expect(merged.hasPrefix(theirs) && merged.hasSuffix(ca), "\(name) is not the user's bundle and the emulator's CA")
        }
        let said = run.stderr.split(separator: "\n").filter { $0.contains("copies with the emulator's CA added") }
        #expect(said.count == 1)
    }

    @Test(.enabled(if: binaryBuilt && T.tool("curl") != nil && T.systemBundle != nil))
    func aHandshakeRefusedForOurCAIsLoggedWithTheFix() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let system = try #require(T.systemBundle)
        // The child fails twice (direct and through the proxy), then waits for the test to have seen both lines.
        let script = #"""
            curl -s --cacert "$0" -o /dev/null "$FCM_EMU_HTTPS_URL/emulator/v1/health"; echo "DIRECT=$?"
            curl -s --cacert "$0" -o /dev/null "https://fcm.googleapis.com/"; echo "PROXIED=$?"
            read line
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: T.binary)
        process.arguments = ["exec", "--set", "stateDir=\(state)", "--", "/bin/sh", "-c", script, system]
        process.environment = T.cleanEnvironment()
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        // A stuck run is ended, not waited for forever.
        // (the child is let go, so its end closes the pipe being read)
        let release = input.fileHandleForWriting
        let stuck = DispatchWorkItem { try? release.write(contentsOf: Data("go\n".utf8)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: stuck)
        defer { stuck.cancel() }
        var seen = ""
        while seen.components(separatedBy: "does not trust fcm-emu's CA").count < 3 {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let warnings = seen.split(separator: "\n").filter { $0.contains("does not trust fcm-emu's CA") }
        #expect(warnings.count == 2, "\(seen)")
        #expect(warnings.allSatisfy { $0.contains("warning") && $0.contains("unknown_ca") && $0.contains("fcm-emu exec") })
        let out = T.lines(stdout)
        #expect(out["DIRECT"] == "60" && out["PROXIED"] == "60")
    }

    @Test(.enabled(if: binaryBuilt && JavaTrustStoreTests.available))
    func aJavaTrustStoreEveryRunAndTheJDKsUntouched() throws {
        let jdk = try JavaTrustStoreTests.FakeJDK()
        defer { try? FileManager.default.removeItem(atPath: jdk.root) }
        let before = try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore))
        let path = jdk.root + "/jdk/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for _ in 0..<2 {
            let run = try exec(
                [], #"echo "OPTIONS=$JAVA_TOOL_OPTIONS"; s=${JAVA_TOOL_OPTIONS#*trustStore=}; keytool -list -keystore "${s%% *}" "#
                    + #"-storepass changeit -alias fcm-emu-ca >/dev/null 2>&1; echo "LISTED=$?""#, environment: ["PATH": path], state: jdk.root)
            #expect(run.status == 0, "\(run.stderr)")
            let out = T.lines(run.stdout)
            #expect(out["OPTIONS"]?.contains("-Djavax.net.ssl.trustStore=") == true && out["LISTED"] == "0", "\(run.stderr)")
            #expect(!run.stderr.contains("no Java trust store"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore)) == before)
        }
    }

    @Test(.enabled(if: binaryBuilt)) func envWritesAPrivateKeyFileAndReplacesALinkAtItsName() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let dir = state + "/env"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let victim = state + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/env-keys-service-account.json", withDestinationPath: victim)
        let run = try exec(
            ["--project", "env-keys"], #"echo "SENDER=$FCM_EMU_SENDER_ID"; "$0" env --emulator "$FCM_EMU_URL" --project env-keys "#
                + #"--format dotenv --dir "$1""#, arguments: [T.binary, dir], state: state)
        #expect(run.status == 0, "\(run.stderr)")
        let key = dir + "/env-keys-service-account.json"
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(!T.isSymbolicLink(key) && T.mode(key) == 0o600)
        #expect(try String(contentsOfFile: key, encoding: .utf8).contains("private_key"))
        let out = T.lines(run.stdout)
        #expect(out["FCM_EMU_SENDER_ID"] == "'\(out["SENDER"] ?? "-")'" && out["FCM_EMU_SERVER_KEY"]?.contains("demo") == false, "\(run.stdout)\n\(run.stderr)")
    }
}
