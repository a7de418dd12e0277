// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import FCMTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import fcm_emu

/// The CLI's errors, on the built binary: exit codes (0, 1 at run time, 64
/// for usage), "did you mean", one clear line when no emulator answers, and `--port 0` taking
/// free ports for every listener so that a second emulator starts.
@Suite("CLI errors and exit codes")
struct CLIErrorTests {
    private func fcmEmu(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try ExecTestSupport.run([ExecTestSupport.binary] + arguments, environment: ExecTestSupport.cleanEnvironment())
    }

    @Test func aMistypedCommandIsAUsageErrorWithASuggestion() throws {
        let result = try fcmEmu(["servee"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: unknown command 'servee'; did you mean 'serve'? (the commands: serve, exec"))
    }

    @Test func aMistypedSettingIsAUsageErrorWithASuggestionAndNoUsageLine() throws {
        let result = try fcmEmu(["serve", "--set", "prot=1"])
        #expect(result.status == 64)
        #expect(result.stderr == "Error: --set: unknown setting 'prot'; did you mean 'port'? (`fcm-emu serve --help` lists them)\n")
    }

    @Test func aBadSettingValueIsAUsageError() throws {
        let result = try fcmEmu(["--port", "99999"])
        #expect(result.status == 64)
        #expect(result.stderr == "Error: --port: port: expected a port number 0–65535, got '99999'\n")
    }

    @Test func theHelpDocumentsTheExitCodes() throws {
        let result = try fcmEmu(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Exit codes: 0 success; 1 the command could not do its work"))
        #expect(result.stdout.contains("64 a usage error"))
    }

    @Test(arguments: [["credentials"], ["env"]])
    func noEmulatorIsOneLineNamingTheURLAndHowToStartOne(_ command: [String]) throws {
        // Port 1 (tcpmux) has no listener on a test machine: the connection is refused.
        let result = try fcmEmu(command + ["--emulator", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: no emulator at http://127.0.0.1:1 (connection refused); start one with `fcm-emu serve`, "
                + "or give its address with --emulator\n")
    }

    @Test func benchOnADebugBuildWarns() throws {
        guard ExecTestSupport.binary.contains("/debug/") else { return }
        let result = try fcmEmu(["bench", "--requests-only", "--requests", "10"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning: this is a debug build"))
    }

    @Test func portZeroTakesFreePortsForEveryListenerSoTwoEmulatorsStart() throws {
        let first = try ServedEmulator(["--port", "0", "--log-format", "json"])
        defer { first.stop() }
        let second = try ServedEmulator(["--port", "0"])
        defer { second.stop() }
        for emulator in [first, second] {
            let https = try #require(emulator.info["https"]?["port"]?.int64Value)
            let xmpp = try #require(emulator.info["xmpp"]?["ports"]?.arrayValue).compactMap(\.int64Value)
            #expect(https != 0 && https != 9093)
            #expect(xmpp.count == 2 && !xmpp.contains(5235) && !xmpp.contains(5236) && !xmpp.contains(0))
        }
        #expect(first.info["https"]?["port"] != second.info["https"]?["port"])

        // The JSON log writes the status and the time taken as numbers.
        let health = try fcmEmu(["health", "--emulator", first.url, "--quiet"])
        #expect(health.status == 0)
        let log = first.stop()
        let access = try #require(log.split(separator: "\n").first { $0.contains("/emulator/v1/health") })
        let line = try JSONParser.parse(Array(access.utf8))
        #expect(line["status"] == .number("200"))
        #expect(line["ms"]?.doubleValue != nil && line["ms"]?.stringValue == nil)
    }

    @Test func aPortInUseIsNamedWithWhatToDo() throws {
        let first = try ServedEmulator(["--port", "0"])
        defer { first.stop() }
        let httpPort = try #require(first.info["http"]?["port"]?.int64Value)
        let tlsPort = try #require(first.info["https"]?["port"]?.int64Value)
        let off = ["--set", "xmppPort=off", "--set", "xmppTestPort=off", "--set", "stateDir=none"]

        let http = try fcmEmu(["serve", "--port", "\(httpPort)", "--set", "tlsPort=off"] + off)
        #expect(http.status == 1)
        #expect(
            http.stderr.hasPrefix(
                "Error: cannot listen on 127.0.0.1:\(httpPort) (HTTP): the port is in use; another emulator may be running. "
                    + "`fcm-emu serve --port 0` takes free ports for every listener, or choose this one with --port N"))
        #expect(!http.stderr.contains("Usage:") && !http.stderr.contains("bind("))

        // With no state directory the run's CA goes in a temporary directory of its own, which
        // a start that fails removes as a stop does: TMPDIR is one of this test's, to look in.
        let temporary = try ExecTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var environment = ExecTestSupport.cleanEnvironment()
        environment["TMPDIR"] = temporary
        let tls = try ExecTestSupport.run(
            [ExecTestSupport.binary, "serve", "--port", "0", "--set", "tlsPort=\(tlsPort)"] + off, environment: environment)
        #expect(tls.status == 1)
        #expect(tls.stderr.contains("cannot listen on 127.0.0.1:\(tlsPort) (TLS): the port is in use"))
        #expect(tls.stderr.contains("--set tlsPort=N (or off)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [], "the run's CA outlived its failed start")
    }

    @Test func portZeroLeavesExplicitPortsAndListenersTurnedOffAlone() throws {
        let (options, _) = try FCMEmu.Serve.parse(["--port", "0", "--set", "tlsPort=9400", "--set", "xmppTestPort=off"]).resolve(
            environment: [:])
        #expect(options.server.tlsPort == 9400)
        #expect(options.xmppPort == 0)
        #expect(options.xmppTestPort == nil)
        #expect(options.proxyPort == nil)
        let (withProxy, _) = try FCMEmu.Serve.parse(["--set", "proxyPort=9401"]).resolve(environment: ["FCM_EMU_PORT": "0"])
        #expect(withProxy.proxyPort == 9401)
        #expect(withProxy.server.tlsPort == 0)
    }

    @Test func aConfigFileKeyGetsASuggestion() throws {
        let scratch = try ScratchDirectory("cli")
        defer { scratch.cleanup() }
        let path = scratch.sub("config.yaml")
        try "tlsPrt: 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try FCMEmu.Serve.parse(["--config", path]).resolve(environment: [:]) } throws: {
            "\($0)".contains("unknown setting 'tlsPrt'; did you mean 'tlsPort'?")
        }
    }

    @Test func jsonLogValuesKeepTheirType() {
        #expect(JSONLogHandler.json(.stringConvertible(200)) == .number("200"))
        #expect(JSONLogHandler.json(.stringConvertible(1.5)) == .number("1.5"))
        #expect(JSONLogHandler.json(.stringConvertible(true)) == .bool(true))
        #expect(JSONLogHandler.json("200") == .string("200"))
        #expect(JSONLogHandler.json(.array(["a", .stringConvertible(2)])) == .array([.string("a"), .number("2")]))
    }
}

/// `fcm-emu serve` in a child process, read until its ready file is written.
final class ServedEmulator: @unchecked Sendable {
    let process = Process()
    let info: JSONValue
    let url: String
    /// The `--ready-file` it wrote.
    let readyFile: String
    private let errors = Pipe()
    private let directory: String
    private var log: String?

    init(_ arguments: [String]) throws {
        directory = try ExecTestSupport.temporaryDirectory()
        let ready = directory + "/ready.json"
        readyFile = ready
        process.executableURL = URL(fileURLWithPath: ExecTestSupport.binary)
        process.arguments = ["serve", "--set", "stateDir=none", "--ready-file", ready] + arguments
        // Its temporary directory is this one, so the CA a run without a state directory makes
        // goes with it: SIGKILL (`stop`) gives the emulator no chance to remove it.
        process.environment = ExecTestSupport.cleanEnvironment(["TMPDIR": directory])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The banner is written after the ready file: once it is out, the file is complete.
        let seen = ExecTestSupport.read(out, until: "127.0.0.1")
        guard let data = FileManager.default.contents(atPath: ready) else {
            process.terminate()
            throw ExecTestSupport.Failure(description: "serve did not start: \(seen)")
        }
        info = try JSONParser.parse(Array(data))
        url = info["http"]?["url"]?.stringValue ?? ""
    }

    /// Stops it and returns what it logged. SIGKILL: these tests are not about the clean stop,
    /// and a SIGTERM sent the instant the banner is out can be lost on Linux, where libdispatch
    /// registers a signal source after `resume()` returns (ServeExportExitTests hung on it).
    @discardableResult
    func stop() -> String {
        if let log { return log }
        kill(process.processIdentifier, SIGKILL)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
        log = text
        return text
    }
}
