// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `exec --isolate` from outside: the same exec again inside new namespaces (`Namespace`), or a
/// loud stop with exit code 2 when they cannot be had; never the command without them.
extension FCMEmu.Exec {
    /// The exit code when `--isolate` cannot isolate: the command did not run.
    static let isolationUnavailable: Int32 = 2

    /// Runs `unshare … -- <this program> exec --inside-namespace <identity> <the same arguments>`
    /// and exits with its status, the command's; SIGINT and SIGTERM go on to it.
    func runIsolatedOutside() async throws {
        let root = geteuid() == 0
        let options = Namespace.unshareOptions(root: root)
        guard let program = Namespace.executable() else {
            throw Self.cannotIsolate("cannot find this program's own file (/proc/self/exe): --isolate needs Linux's /proc")
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let at = arguments.firstIndex(of: "exec") else {
            throw Self.cannotIsolate("cannot find `exec` in this command line to run it again inside the namespaces")
        }
        arguments.insert(contentsOf: ["--inside-namespace", Namespace.identity()], at: at + 1)
        let environment = ProcessInfo.processInfo.environment
        let inside = ["unshare"] + options + ["--", program] + arguments
        // A trial run first: a refusal by the kernel (unprivileged user namespaces turned off, a
        // seccomp filter in a container) must stop exec here, with exit code 2, not pass as the
        // command's own failure.
        switch ChildProcess.spawn(["unshare"] + options + ["--", "true"], environment: environment) {
        case .failure(let error):
            let reason = error.code == .ENOENT ? "unshare(1) is not on PATH (it is util-linux's)" : "cannot run unshare: \(error)"
            throw Self.cannotIsolate(reason)
        case .success(let trial):
            let status = await trial.exitCode()
            guard status == 0 else {
                let how = "unshare " + (options + ["true"]).joined(separator: " ")
                throw Self.cannotIsolate(
                    "`\(how)` failed (exit \(status), its reason above): this machine gives no private network and mount "
                        + (root
                            ? "namespaces"
                            : "namespaces to an unprivileged user (user_namespaces(7); kernel.unprivileged_userns_clone, "
                                + "or an AppArmor or container policy, can forbid them)"))
            }
        }
        let inner = CommandService {
            switch ChildProcess.spawn(inside, environment: environment) {
            case .failure(let error):
                Self.say("fcm-emu exec --isolate: cannot run unshare: \(error)")
                return Self.isolationUnavailable
            case .success(let child):
                return await withGracefulShutdownHandler {
                    await child.exitCode()
                } onGracefulShutdown: {
                    child.signal(SIGTERM)
                }
            }
        }
        try await EmulatorServices.run([inner], logger: Logger(label: "fcm-emu") { _ in SwiftLogNoOpLogHandler() })
        throw ExitCode(inner.code.load(ordering: .acquiring))
    }

    /// Said on stderr with what to do instead; exit code 2 (`isolationUnavailable`).
    static func cannotIsolate(_ reason: String) -> ExitCode {
        say(
            "fcm-emu exec --isolate: \(reason). The command was not run: without the namespaces nothing would keep it from "
                + "the real Google. Run exec without --isolate (the routes still point SDKs at the emulator; "
                + "docs/unmodified-apps.md), or where `unshare -rn true` works (as root, `unshare -n true`).")
        return ExitCode(isolationUnavailable)
    }
}
