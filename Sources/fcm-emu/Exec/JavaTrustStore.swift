// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Java trust store with the emulator's CA, for `JAVA_TOOL_OPTIONS`: the bytes of the JDK's own
/// `cacerts` copied into a new file of ours, and the CA imported there with `keytool`, so Java
/// clients trust the emulator and still the real hosts a tunnel reaches.
///
/// Nothing outside the destination's directory is ever written: on Debian the
/// JDK's `lib/security/cacerts` is a link to `/etc/ssl/certs/java/cacerts`, so the store is made in
/// a fresh private directory from the bytes read through the link, and renamed over the
/// destination (replacing whatever link or file was there). It is made fresh each time, and a CA
/// already in the copy under our alias (from a store an older fcm-emu wrote through) is replaced.
enum JavaTrustStore {
    static let password = "changeit"
    static let alias = "fcm-emu-ca"

    enum Outcome: Equatable {
        case made
        /// No `keytool` on PATH: no JDK, nothing to do.
        case noJDK
        /// A JDK is there but the store could not be made; the reason, for a loud line.
        case failed(String)
    }

    /// Writes the store to `path`. `keytool` is looked up on PATH unless given; the JDK is the
    /// directory above its `bin`, links resolved.
    static func write(ca: String, to path: String, keytool: String? = nil) -> Outcome {
        guard let keytool = keytool ?? which("keytool") else { return .noJDK }
        let jdk = URL(fileURLWithPath: keytool).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        let cacerts = jdk.appendingPathComponent("lib/security/cacerts").path
        let scratch: String
        do {
            scratch = try PrivateFiles.makeDirectory(in: URL(fileURLWithPath: path).deletingLastPathComponent().path, prefix: ".truststore-")
        } catch {
            return .failed("\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let store = scratch + "/truststore.p12"
        if FileManager.default.fileExists(atPath: cacerts) {
            do {
                try PrivateFiles.write(try PrivateFiles.read(cacerts), to: store)
            } catch {
                return .failed("cannot copy the JDK's trust store: \(error)")
            }
        }
        let importing = ["-importcert", "-noprompt", "-alias", alias, "-file", ca] + storeArguments(store)
        var (status, output) = ChildOutput.run(keytool, importing)
        if status != 0, output.contains("already exists") {
            // The JDK's store already holds our alias: an older fcm-emu wrote through its link.
            _ = ChildOutput.run(keytool, ["-delete", "-alias", alias] + storeArguments(store))
            (status, output) = ChildOutput.run(keytool, importing)
        }
        guard status == 0 else {
            let said = output.split(whereSeparator: \.isNewline).first.map(String.init) ?? "no output"
            return .failed("keytool -importcert exited \(status): \(said)")
        }
        chmod(store, 0o600)
        do {
            try PrivateFiles.rename(store, over: path)
        } catch {
            return .failed("\(error)")
        }
        return .made
    }

    private static func storeArguments(_ store: String) -> [String] {
        ["-keystore", store, "-storetype", "PKCS12", "-storepass", password]
    }

    private static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
