// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import fcm_emu

/// The built `fcm-emu exec --isolate` where it must not isolate: it stops with exit code 2 and says
/// why, and the command never runs (docs/unmodified-apps.md, "Fail closed: exec --isolate"). The
/// isolated runs themselves need namespaces: interop/test_exec_isolate.py.
@Suite("exec --isolate refuses to run unisolated")
struct IsolateExecTests {
    typealias T = ExecTestSupport

    static var binaryBuilt: Bool { FileManager.default.isExecutableFile(atPath: T.binary) }

    @Test(.enabled(if: binaryBuilt)) func withoutUnshareItStopsBeforeTheCommand() throws {
        let scratch = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // A PATH with no unshare on it.
        let run = try T.run(
            [T.binary, "exec", "--isolate", "--", "/bin/sh", "-c", "touch \(scratch)/ran"],
            environment: T.cleanEnvironment(["PATH": scratch]))
        #expect(run.status == 2)
        #expect(run.stderr.contains("fcm-emu exec --isolate: unshare(1) is not on PATH"), "\(run.stderr)")
        #expect(run.stderr.contains("The command was not run"))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/ran"))
    }

    @Test(.enabled(if: binaryBuilt)) func theInsideFlagInTheSameNamespacesMountsNothing() throws {
        let scratch = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let hosts = try String(contentsOfFile: "/etc/hosts", encoding: .utf8)
        let run = try T.run(
            [T.binary, "exec", "--isolate", "--inside-namespace", Namespace.identity(), "--", "/bin/sh", "-c", "touch \(scratch)/ran"],
            environment: T.cleanEnvironment())
        #expect(run.status == 2)
        #expect(run.stderr.contains("--inside-namespace is exec --isolate's own"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/ran"))
        #expect(try String(contentsOfFile: "/etc/hosts", encoding: .utf8) == hosts)
    }

    @Test(.enabled(if: binaryBuilt)) func attachAndIsolateDoNotGoTogether() throws {
        let run = try T.run(
            [T.binary, "exec", "--isolate", "--attach", "http://127.0.0.1:9", "--", "true"], environment: T.cleanEnvironment())
        #expect(run.status == 64)
        #expect(run.stderr.contains("--isolate runs an emulator of its own"), "\(run.stderr)")
    }
}
