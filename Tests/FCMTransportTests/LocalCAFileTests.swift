// SPDX-License-Identifier: Apache-2.0

import FCMTesting
import FCMTransport
import Foundation
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
