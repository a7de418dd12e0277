// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// Something the command could not do at run time (exit code 1): the message alone, no usage
/// line, since the command line was right. Usage errors are `ValidationError` (ArgumentParser's,
/// exit 64) and `ConfigError` (a setting's value or key, exit 64 as well; see `FCMEmu.main`).
struct RuntimeFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// A listener that did not start: its real address, why, and what to change.
    init(listening error: any Error, what: String = "the emulator") {
        guard let failure = error as? ListenFailure else {
            description = "cannot start \(what): \(error)"
            return
        }
        var text = failure.description
        if failure.addressInUse {
            let setting =
                switch failure.listener {
                case "HTTP": "--port N"
                case "TLS": "--set tlsPort=N (or off)"
                case let name: "--set \(name.split(separator: " ").last ?? "")=N (or off)"
                }
            text += "; another emulator may be running. `fcm-emu serve --port 0` takes free ports for every listener, or choose this one with \(setting)"
        }
        description = text
    }
}
