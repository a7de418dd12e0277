// SPDX-License-Identifier: Apache-2.0

import FCMTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Helpers for the tests that run the built `fcm-emu`: a temporary directory, the
/// binary, a run with a clean environment, file modes.
enum ExecTestSupport {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The built binary: `FCM_EMU_BIN`, or `.build/debug/fcm-emu` of this package.
    static var binary: String {
        if let given = ProcessInfo.processInfo.environment["FCM_EMU_BIN"] { return given }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/fcm-emu").path
    }

    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func temporaryDirectory() throws -> String { try ScratchDirectory("exec-test").path }

    /// The environment without anything that points at an emulator, a proxy or a CA, plus `extra`.
    static func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        let dropped = [
            "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
            "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "JAVA_TOOL_OPTIONS",
        ]
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            !dropped.contains(name) && !["GOOGLE_", "GCLOUD_", "FIREBASE_", "GCE_", "FCM_EMU_"].contains { name.hasPrefix($0) }
        }
        if let binary = ProcessInfo.processInfo.environment["FCM_EMU_BIN"] { environment["FCM_EMU_BIN"] = binary }
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `arguments` (a shell command line when `shell`), waiting for it to end.
    static func run(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drained on two threads, so neither pipe fills while the other is read.
        let errText = Box()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errText.value = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            drained.signal()
        }
        let outText = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        drained.wait()
        process.waitUntilExit()
        return (process.terminationStatus, outText, errText.value)
    }

    final class Box: @unchecked Sendable { var value = "" }

    /// Reads `pipe` until `text` appeared or it ended (e.g. a `serve` banner naming its address).
    static func read(_ pipe: Pipe, until text: String) -> String {
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(text) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        return String(decoding: seen, as: UTF8.self)
    }

    /// Permission bits of `path`, links not followed.
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// `KEY=value` lines a child printed, as a dictionary.
    static func lines(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            out[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return out
    }

    /// The first system bundle of roots there is.
    static var systemBundle: String? {
        ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"].first {
            FileManager.default.fileExists(atPath: $0)
        }
    }
}
