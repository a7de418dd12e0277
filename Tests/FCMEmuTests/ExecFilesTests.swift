// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import Testing

@testable import fcm_emu

/// What `exec` and `env` write, and how, tested on the parts.
@Suite("exec: private files, merged CA bundles, preset variables")
struct ExecFilesTests {
    typealias T = ExecTestSupport

    @Test func aPrivateDirectoryIsNewEachTimeAndOnlyOurs() throws {
        let parent = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let first = try PrivateFiles.makeDirectory(in: parent, prefix: "fcm-emu-exec-")
        let second = try PrivateFiles.makeDirectory(in: parent, prefix: "fcm-emu-exec-")
        #expect(first != second)
        #expect(first.hasPrefix(parent + "/fcm-emu-exec-") && first.count == (parent + "/fcm-emu-exec-XXXXXX").count)
        #expect(T.mode(first) == 0o700 && T.mode(second) == 0o700)
    }

    @Test func aFileIsWrittenNewAndALinkAtItsNameIsReplacedNotFollowed() throws {
        let directory = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let key = directory + "/key.json"
        try FileManager.default.createSymbolicLink(atPath: key, withDestinationPath: victim)
        try PrivateFiles.write(Array("secret".utf8), to: key, mode: 0o600)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(!T.isSymbolicLink(key) && T.mode(key) == 0o600)
        #expect(try String(contentsOfFile: key, encoding: .utf8) == "secret")
        // A readable file left at the name by someone else is replaced with a 0600 one.
        chmod(key, 0o666)
        try PrivateFiles.write(Array("again".utf8), to: key, mode: 0o600)
        #expect(T.mode(key) == 0o600)
        #expect(try String(contentsOfFile: key, encoding: .utf8) == "again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["key.json", "victim"])
    }

    @Test func aBundleTheEnvironmentNamesIsCopiedWithTheCAAdded() throws {
        let directory = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let corporate = directory + "/corporate.pem"
        let theirs = "-----BEGIN CERTIFICATE-----\nCORPORATE\n-----END CERTIFICATE-----"  // no final newline
        try theirs.write(toFile: corporate, atomically: false, encoding: .utf8)
        let extra = directory + "/extra.pem"
        try "-----BEGIN CERTIFICATE-----\nEXTRA\n-----END CERTIFICATE-----\n".write(toFile: extra, atomically: false, encoding: .utf8)
        let ca = "-----BEGIN CERTIFICATE-----\nFCMEMU\n-----END CERTIFICATE-----\n"
        let preset = ["SSL_CERT_FILE": corporate, "REQUESTS_CA_BUNDLE": corporate, "CURL_CA_BUNDLE": corporate, "NODE_EXTRA_CA_CERTS": extra]
        let merge = PresetEnvironment.mergeBundles(preset: preset, caPEM: ca, directory: directory)
        let copy = try #require(merge.values["SSL_CERT_FILE"])
        #expect(merge.values["REQUESTS_CA_BUNDLE"] == copy && merge.values["CURL_CA_BUNDLE"] == copy)
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == theirs + "\n" + ca)
        let node = try #require(merge.values["NODE_EXTRA_CA_CERTS"])
        #expect(node != copy)
        #expect(try String(contentsOfFile: node, encoding: .utf8).hasSuffix("EXTRA\n-----END CERTIFICATE-----\n" + ca))
        #expect(try String(contentsOfFile: corporate, encoding: .utf8) == theirs)
        #expect(merge.notes.count == 1)
        #expect(merge.notes.first?.contains("SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, NODE_EXTRA_CA_CERTS") == true)
    }

    @Test func aBundleThatCannotBeMergedIsKeptAndSaid() throws {
        let merge = PresetEnvironment.mergeBundles(
            preset: ["SSL_CERT_FILE": "/nonexistent/bundle.pem", "REQUESTS_CA_BUNDLE": "/"], caPEM: "x", directory: "/nonexistent")
        #expect(merge.values.isEmpty)
        #expect(merge.notes.count == 2 && merge.notes.allSatisfy { $0.contains("will not trust the emulator") })
    }

    @Test func presetVariablesInTheWayAreNamedWithTheFix() {
        let plan = [
            ("HTTPS_PROXY", "http://127.0.0.1:4000"), ("NO_PROXY", "127.0.0.1,localhost,::1"), ("GOOGLE_CLOUD_PROJECT", "app"),
            ("FCM_EMU_URL", "http://127.0.0.1:4001"), ("SSL_CERT_FILE", "/work/bundle.pem"),
        ]
        let lines = PresetEnvironment.conflicts(
            preset: [
                "HTTPS_PROXY": "http://corp:3128", "NO_PROXY": "localhost,.googleapis.com", "GOOGLE_CLOUD_PROJECT": "app",
                "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
            ], plan: plan, credentials: .keyFile)
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains("HTTPS_PROXY (http://corp:3128) is kept") && $0.contains("env -u HTTPS_PROXY") })
        #expect(lines.contains { $0.contains("NO_PROXY") && $0.contains("fcm.googleapis.com") })
        // A NO_PROXY that leaves Google's hosts to the proxy is no trouble; ADC in the way of the metadata server is.
        #expect(PresetEnvironment.conflicts(preset: ["NO_PROXY": "corp.example,*.internal"], plan: plan, credentials: .keyFile).isEmpty)
        let adc = PresetEnvironment.conflicts(preset: ["GOOGLE_APPLICATION_CREDENTIALS": "/me/sa.json"], plan: plan, credentials: .metadata)
        #expect(adc.count == 1 && adc.first?.contains("sign in with that key file") == true)
        let http = PresetEnvironment.conflicts(
            preset: ["http_proxy": "http://corp:3128"], plan: [("http_proxy", "http://127.0.0.1:4000")], credentials: .keyFile)
        #expect(http.count == 1 && http.first?.contains("Ruby's google-api-client") == true)
        #expect(PresetEnvironment.excludedGoogleHost("*") == "fcm.googleapis.com")
        #expect(PresetEnvironment.excludedGoogleHost("googleapis.com") == "fcm.googleapis.com")
        #expect(PresetEnvironment.excludedGoogleHost("notgoogleapis.com, oauth2.googleapis.com") == "oauth2.googleapis.com")
    }

    @Test func theProjectsOwnSenderIdAndServerKeyAreHanded() {
        // The demo project's values in the info document are not --project's.
        let info = JSONValue.object([
            ("http", .object([("url", .string("http://127.0.0.1:41000"))])),
            ("demoProject", .object([("senderId", .string("123456789012")), ("serverKey", .string("AAAA:demo"))])),
        ])
        var plan = EnvironmentPlan(info: info, project: "my-app", credentials: .keyFile, keyFile: nil, bundle: "/b.pem")
        plan.senderId = "555"
        plan.serverKey = "AAAA:mine"
        let unknown = EnvironmentPlan(info: info, project: "my-app", credentials: .keyFile, keyFile: nil, bundle: "/b.pem")
        #expect(!unknown.variables.contains { $0.1 == "AAAA:demo" || $0.1 == "123456789012" })
        let vars = Dictionary(plan.variables, uniquingKeysWith: { first, _ in first })
        #expect(vars["FCM_EMU_SENDER_ID"] == "555" && vars["FCM_EMU_SERVER_KEY"] == "AAAA:mine")
        #expect(vars["CURL_CA_BUNDLE"] == "/b.pem")
    }

    /// A CA variable naming a FIFO (or `/dev/stdin`) held `exec` for good: the open blocked and
    /// SIGTERM could not end it, and the private folder with the key stayed. It is refused at once
    /// and the variable kept, with a note that says why.
    @Test(.timeLimit(.minutes(1)))
    func aCABundleThatIsAFIFOIsRefusedAtOnce() throws {
        let directory = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/bundle.pem"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect {
            try PrivateFiles.read(fifo)
        } throws: { error in
            "\(error)".contains("is a FIFO (a pipe), not a regular file")
        }
        let merge = PresetEnvironment.mergeBundles(preset: ["SSL_CERT_FILE": fifo], caPEM: "", directory: directory)
        #expect(merge.values["SSL_CERT_FILE"] == nil)
        #expect(merge.notes.contains { $0.contains("SSL_CERT_FILE") && $0.contains("FIFO") })
        #expect(throws: PrivateFiles.Failure.self) { try PrivateFiles.read(directory) }
    }
}
