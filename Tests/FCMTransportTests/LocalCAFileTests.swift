// SPDX-License-Identifier: Apache-2.0

import FCMTesting
import FCMTransport
import Foundation
import Synchronization
import Testing

/// The local CA's files are written and read without following a link in the state directory
/// (docs/security.md): its key was written through a link, and the chmod to 0600 then changed the
/// file the link pointed to.
@Suite struct LocalCAFileTests {
    @Test func aLinkAtTheKeysNameIsReplacedNotWrittenThrough() throws {
        let scratch = try ScratchDirectory("ca-link")
        defer { scratch.cleanup() }
        let victim = scratch.sub("victim.txt")
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(chmod(victim, 0o644) == 0)
        let state = scratch.sub("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: state + "/ca-key.pem", withDestinationPath: victim)
        let path = try TLSFiles.caCertificatePath(stateDirectory: state)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        let victimMode = try FileManager.default.attributesOfItem(atPath: victim)[.posixPermissions] as? Int
        #expect(victimMode == 0o644)
        let key = try FileManager.default.attributesOfItem(atPath: state + "/ca-key.pem")
        #expect(key[.type] as? FileAttributeType == .typeRegular)
        #expect(key[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("BEGIN CERTIFICATE"))
        // The CA made is the one read at the next start.
        #expect(try TLSFiles.caCertificatePath(stateDirectory: state) == path)
    }

    /// The listeners of one start load the CA side by side: in a fresh state directory, each
    /// made a CA of its own, so some served leaves the `ca.pem` on disk had not signed.
    @Test func listenersStartingTogetherShareOneCA() throws {
        let scratch = try ScratchDirectory("ca-race")
        defer { scratch.cleanup() }
        let together = 2
        for attempt in 0..<100 {
            let state = scratch.sub("state\(attempt)")
            let made = Mutex<[String]>([])
            let arrived = Atomic(0)
            // Two threads that start making their contexts at the same moment, as listeners do.
            DispatchQueue.concurrentPerform(iterations: together) { _ in
                arrived.add(1, ordering: .sequentiallyConsistent)
                while arrived.load(ordering: .sequentiallyConsistent) < together {}
                let pem = (try? TLSFiles.serverContext(directory: state, hosts: ["fcm.googleapis.com"], alpn: [])).flatMap {
                    try? String(contentsOfFile: $0.caPath, encoding: .utf8)
                }
                made.withLock { $0.append(pem ?? "failed") }
            }
            let onDisk = try String(contentsOfFile: state + "/ca.pem", encoding: .utf8)
            #expect(made.withLock { $0 } == Array(repeating: onDisk, count: together), "attempt \(attempt): one CA, read by both")
        }
    }

    /// A certificate and a key of two different CAs are refused, naming both, rather than
    /// issuing leaves no client would accept.
    @Test func aCertificateWithAnotherCAsKeyIsRefusedWithWhatToDo() throws {
        let scratch = try ScratchDirectory("ca-mismatch")
        defer { scratch.cleanup() }
        let (first, second) = (scratch.sub("first"), scratch.sub("second"))
        _ = try TLSFiles.caCertificatePath(stateDirectory: first)
        _ = try TLSFiles.caCertificatePath(stateDirectory: second)
        try FileManager.default.removeItem(atPath: first + "/ca-key.pem")
        try FileManager.default.copyItem(atPath: second + "/ca-key.pem", toPath: first + "/ca-key.pem")
        #expect {
            try TLSFiles.caCertificatePath(stateDirectory: first)
        } throws: { error in
            "\(error)".contains("was not made with the key") && "\(error)".contains("remove both")
        }
    }

    @Test func aCAWhoseFilesAreLinksIsRefusedWithTheReason() throws {
        let scratch = try ScratchDirectory("ca-link")
        defer { scratch.cleanup() }
        let first = scratch.sub("first")
        _ = try TLSFiles.caCertificatePath(stateDirectory: first)
        let second = scratch.sub("second")
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: false)
        for name in ["ca.pem", "ca-key.pem"] {
            try FileManager.default.createSymbolicLink(atPath: second + "/" + name, withDestinationPath: first + "/" + name)
        }
        #expect {
            try TLSFiles.caCertificatePath(stateDirectory: second)
        } throws: { error in
            "\(error)".contains("symbolic link")
        }
    }
}
