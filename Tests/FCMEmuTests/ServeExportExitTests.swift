// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// `serve --export-on-exit` that cannot write its snapshot ends with a non-zero status: a script
/// that stops the emulator and then uses the snapshot must learn it is not there. Runs the built binary and stops it with SIGTERM once its banner is out.
@Suite struct ServeExportExitTests {
    @Test func failedExitExportIsANonZeroStatus() throws {
        let dir = try ExecTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A snapshot path under a regular file: no directory can ever be made there.
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        let status = try Self.serveUntilReadyThenTerminate(["--export-on-exit", dir + "/file/snapshot"])
        #expect(status != 0)
    }

    @Test func successfulExitExportIsStatusZero() throws {
        let dir = try ExecTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let status = try Self.serveUntilReadyThenTerminate(["--export-on-exit", dir + "/snapshot"])
        #expect(status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/snapshot/manifest.json"))
    }

    /// A SIGTERM to `exec` goes on to the command, and `exec` ends with the command's status once
    /// it has stopped (the command is the first service the shutdown stops: EmulatorServices.swift).
    @Test func execPassesASignalOnToTheCommandAndEndsWithItsStatus() throws {
        let script = #"trap 'echo bye; exit 7' TERM; echo up; while true; do sleep 1 & wait $!; done"#
        let (process, out) = try Self.start(
            ["exec", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "stateDir=none", "--", "sh", "-c", script])
        #expect(ExecTestSupport.read(out, until: "up").contains("up"))
        process.terminate()
        #expect(ExecTestSupport.read(out, until: "bye").contains("bye"))
        process.waitUntilExit()
        #expect(process.terminationStatus == 7)
    }

    /// `exec --set autosave=…` writes the world while the command runs, as `serve` does (it was
    /// accepted and never done). The command waits up to 10 s for the first autosave's manifest.
    @Test func execAutosavesWhileTheCommandRuns() throws {
        let dir = try ExecTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let manifest = dir + "/state/snapshots/autosave/manifest.json"
        let script = "for i in $(seq 200); do [ -f '\(manifest)' ] && { echo saved; exit 0; }; sleep 0.05; done; echo none; exit 3"
        let (process, out) = try Self.start(
            ["exec", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "stateDir=\(dir)/state", "--set", "autosave=1s"]
                + ["--", "sh", "-c", script])
        let said = ExecTestSupport.read(out, until: "\n")
        process.waitUntilExit()
        #expect(said == "saved\n")
        #expect(process.terminationStatus == 0)
    }

    static func serveUntilReadyThenTerminate(_ extra: [String]) throws -> Int32 {
        let (process, out) = try start(
            ["serve", "--port", "0", "--host", "127.0.0.1", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "xmppTestPort=off"]
                + ["--set", "stateDir=none"] + extra)
        // The banner is written after the SIGTERM handler is in place: read until it is out.
        _ = ExecTestSupport.read(out, until: "127.0.0.1")
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The built binary with `arguments`, its standard output in a pipe.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExecTestSupport.binary)
        process.arguments = arguments
        process.environment = ExecTestSupport.cleanEnvironment()
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }
}
