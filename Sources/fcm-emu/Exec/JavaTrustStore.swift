// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A Java trust store with the emulator's CA, for `JAVA_TOOL_OPTIONS`: the JDK's own `cacerts`
/// copied, and the CA imported with `keytool`, so Java clients trust the emulator and still the
/// real hosts a tunnel reaches. Nothing when no JDK is installed.
enum JavaTrustStore {
    static let password = "changeit"

    /// Writes the store to `path`; false when there is no `keytool` (or it fails).
    static func write(ca: String, to path: String) -> Bool {
        guard let keytool = which("keytool") else { return false }
        let jdk = URL(fileURLWithPath: keytool).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        let cacerts = jdk.appendingPathComponent("lib/security/cacerts").path
        try? FileManager.default.removeItem(atPath: path)
        if FileManager.default.fileExists(atPath: cacerts) { try? FileManager.default.copyItem(atPath: cacerts, toPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: keytool)
        process.arguments = [
            "-importcert", "-noprompt", "-alias", "fcm-emu-ca", "-file", ca, "-keystore", path, "-storetype", "PKCS12", "-storepass",
            password,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return false
        }
        return process.terminationStatus == 0
    }

    private static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
