// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMHTTP

@main
struct FCMEmu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-emu",
        abstract: "A local Firebase Cloud Messaging emulator: simulated devices, a control API, a virtual clock.",
        discussion: """
            Start it with `fcm-emu serve` (the default) and drive it over HTTP: create devices, change their state \
            (foreground, background, doze, offline, uninstalled), move the clock, and read what each app received. \
            Every command has its own --help.
            """,
        version: FCMEmuVersion.current,
        subcommands: [Serve.self, Exec.self, Env.self, Run.self, Health.self, CA.self, Credentials.self, Bench.self, Version.self],
        defaultSubcommand: Serve.self
    )
}
