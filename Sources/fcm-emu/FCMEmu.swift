// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@main
struct FCMEmu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-emu",
        abstract: "A local Firebase Cloud Messaging emulator: simulated devices, a control API, a virtual clock.",
        discussion: """
            Start it with `fcm-emu serve` (the default) and drive it over HTTP: create devices, change their state \
            (foreground, background, doze, offline, uninstalled), move the clock, and read what each app received. \
            Every command has its own --help.

            Exit codes: 0 success; 1 the command could not do its work (the emulator is not reachable, a port is in \
            use, a scenario failed); 64 a usage error (an unknown command, flag or setting, or a bad value; EX_USAGE \
            of sysexits.h). `exec` exits with its command's code.
            """,
        version: FCMEmuVersion.current,
        subcommands: [
            Serve.self, Exec.self, Env.self, Run.self, Health.self, Why.self, CA.self, Credentials.self, Bench.self, MCPCommand.self, Version.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// ArgumentParser's own main, with two additions: a first word that is no command gets a "did
    /// you mean" (it would otherwise be taken as an argument of `serve`, the default), and a
    /// setting's error exits 64 like any usage error, without `serve`'s long usage line.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let message = unknownCommand(first) {
            StandardStreams.writeError("Error: \(message)\n")
            Self.exit(withError: ExitCode.validationFailure)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConfigError {
            StandardStreams.writeError("Error: \(error.description)\n")
            Self.exit(withError: ExitCode.validationFailure)
        } catch {
            exit(withError: error)
        }
    }

    /// The message for a first word that is not a command, or nil.
    static func unknownCommand(_ word: String) -> String? {
        guard !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(word), word != "help" else { return nil }
        return "unknown command '\(word)'\(NearestName.hint(for: word, among: names)) (the commands: \(names.joined(separator: ", ")))"
    }
}
