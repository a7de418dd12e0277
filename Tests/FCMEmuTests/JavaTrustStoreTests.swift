// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import fcm_emu

/// The Java trust store `exec` and `env` make, on a fake JDK laid out as
/// Debian's: `lib/security/cacerts` a link to a "system" store elsewhere, which must come out
/// byte for byte as it went in.
@Suite("Java trust store: the JDK's store is copied, never written")
struct JavaTrustStoreTests {
    typealias T = ExecTestSupport

    static let keytool = T.tool("keytool").map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
    static let jdkStore: String? = keytool.map {
        URL(fileURLWithPath: $0).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/security/cacerts")
            .resolvingSymlinksInPath().path
    }
    static var available: Bool { keytool != nil && jdkStore.map { FileManager.default.fileExists(atPath: $0) } == true && T.tool("openssl") != nil }

    /// `root/jdk/bin/keytool` (running the real one), `root/jdk/lib/security/cacerts` → `root/system/cacerts`
    /// (a copy of the real JDK's store), and a CA certificate; the fake keytool's path and the system store's.
    struct FakeJDK {
        let root: String
        var keytool: String { root + "/jdk/bin/keytool" }
        var systemStore: String { root + "/system/cacerts" }
        var ca: String { root + "/ca.pem" }

        /// Written through a descriptor that closes on exec: a process another test spawns meanwhile
        /// must not keep the file open for writing, or running it fails with ETXTBSY ("Text file
        /// busy") for as long as that process lives.
        static func writeExecutable(_ text: String, to path: String) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard fd >= 0 else { throw T.Failure(description: "cannot write \(path): errno \(errno)") }
            defer { close(fd) }
            let bytes = Array(text.utf8)
            guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
                throw T.Failure(description: "cannot write \(path): errno \(errno)")
            }
        }

        init() throws {
            root = try T.temporaryDirectory()
            let files = FileManager.default
            for directory in ["/jdk/bin", "/jdk/lib/security", "/system", "/out"] {
                try files.createDirectory(atPath: root + directory, withIntermediateDirectories: true)
            }
            guard let real = JavaTrustStoreTests.keytool, let store = JavaTrustStoreTests.jdkStore else {
                throw T.Failure(description: "no JDK")
            }
            try Self.writeExecutable("#!/bin/sh\nexec '\(real)' \"$@\"\n", to: keytool)
            try files.copyItem(atPath: store, toPath: systemStore)
            try files.createSymbolicLink(atPath: root + "/jdk/lib/security/cacerts", withDestinationPath: systemStore)
            let made = try T.run(
                [
                    T.tool("openssl") ?? "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=fcm-emu test CA",
                    "-days", "1", "-keyout", root + "/ca.key", "-out", ca,
                ], environment: ProcessInfo.processInfo.environment)
            guard made.status == 0 else { throw T.Failure(description: "openssl: \(made.stderr)") }
        }

        func aliases(_ store: String) throws -> String {
            try T.run([keytool, "-list", "-keystore", store, "-storepass", JavaTrustStore.password], environment: [:]).stdout
        }
    }

    @Test(.enabled(if: available, "needs a JDK and openssl"))
    func theJDKsStoreIsUnchangedAndEveryRunMakesAStore() throws {
        let jdk = try FakeJDK()
        defer { try? FileManager.default.removeItem(atPath: jdk.root) }
        let before = try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore))
        let out = jdk.root + "/out/truststore.p12"
        for _ in 0..<2 {
            #expect(JavaTrustStore.write(ca: jdk.ca, to: out, keytool: jdk.keytool) == .made)
            #expect(try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore)) == before)
            #expect(!T.isSymbolicLink(out) && T.mode(out) == 0o600)
            #expect(try jdk.aliases(out).contains(JavaTrustStore.alias))
        }
        // The store is the JDK's roots and ours: more entries than ours alone.
        #expect(try jdk.aliases(out).split(separator: "\n").count > 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: jdk.root + "/out") == ["truststore.p12"])
    }

    @Test(.enabled(if: available, "needs a JDK and openssl"))
    func aJDKStoreAnOlderFcmEmuWroteThroughStillGivesAStore() throws {
        let jdk = try FakeJDK()
        defer { try? FileManager.default.removeItem(atPath: jdk.root) }
        // What the old exec left in the system store: our alias, taken.
        let polluted = try T.run(
            [
                jdk.keytool, "-importcert", "-noprompt", "-alias", JavaTrustStore.alias, "-file", jdk.ca, "-keystore", jdk.systemStore,
                "-storepass", JavaTrustStore.password,
            ], environment: [:])
        #expect(polluted.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore))
        #expect(JavaTrustStore.write(ca: jdk.ca, to: jdk.root + "/out/truststore.p12", keytool: jdk.keytool) == .made)
        #expect(try Data(contentsOf: URL(fileURLWithPath: jdk.systemStore)) == before)
    }

    @Test(.enabled(if: available, "needs a JDK and openssl"))
    func aLinkPlantedAtTheDestinationIsReplacedNotWrittenThrough() throws {
        let jdk = try FakeJDK()
        defer { try? FileManager.default.removeItem(atPath: jdk.root) }
        let victim = jdk.root + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        let out = jdk.root + "/out/truststore.p12"
        try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: victim)
        #expect(JavaTrustStore.write(ca: jdk.ca, to: out, keytool: jdk.keytool) == .made)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious" && !T.isSymbolicLink(out))
    }

    @Test(.enabled(if: available, "needs a JDK and openssl"))
    func aStoreThatCannotBeMadeSaysWhy() throws {
        let jdk = try FakeJDK()
        defer { try? FileManager.default.removeItem(atPath: jdk.root) }
        guard case .failed(let reason) = JavaTrustStore.write(ca: jdk.root + "/missing.pem", to: jdk.root + "/out/t.p12", keytool: jdk.keytool)
        else {
            Issue.record("a missing CA made a store")
            return
        }
        #expect(reason.contains("keytool"))
        #expect(JavaTrustStore.write(ca: jdk.ca, to: jdk.root + "/out/t.p12", keytool: jdk.root + "/nope") != .made)
    }
}
