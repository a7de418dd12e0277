// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FCMEmu {
    struct Health: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exit 0 once an emulator answers its health check; for container health checks and CI waits.",
            discussion: """
                Asks GET /emulator/v1/health until it answers 200 or --timeout passes (0: ask once). With \
                --ready-file, first waits for `serve --ready-file` to write the file and takes the address from it. \
                The address is --emulator, else $FCM_EMU_URL (set by `fcm-emu exec` and `fcm-emu env`), else \
                http://127.0.0.1:9092. Exit status: 0 healthy, 1 not healthy in time.

                Examples:
                  fcm-emu health                                   # one emulator on the default port
                  fcm-emu serve --port 0 --ready-file /tmp/fcm.json & fcm-emu health --ready-file /tmp/fcm.json
                  HEALTHCHECK CMD ["fcm-emu", "health", "--timeout", "0"]
                """
        )

        @Option(help: "The emulator's HTTP address (default: $FCM_EMU_URL or http://127.0.0.1:9092).")
        var emulator: String?

        @Option(help: "Wait for this ready file (serve --ready-file) and use the address in it.", completion: .file())
        var readyFile: String?

        @Option(help: "How long to keep asking: 500ms, 30s, 2m; 0 asks once.")
        var timeout = "30s"

        @Flag(help: "Print nothing; the exit status says it all.")
        var quiet = false

        func run() async throws {
            guard let millis = DurationText.millis(timeout) else {
                throw ValidationError("--timeout: expected a duration such as 500ms, 30s or 2m, got '\(timeout)'")
            }
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .milliseconds(millis))
            var pause = Duration.milliseconds(5)
            var lastProblem = ""
            while true {
                do {
                    let base = try address()
                    let answer = try await ControlClient(base: base).get("/emulator/v1/health", timeout: .seconds(5))
                    if answer.status == 200 {
                        if !quiet { print("healthy: \(base)") }
                        return
                    }
                    lastProblem = "\(base) answered \(answer.status)"
                } catch {
                    lastProblem = "\(error)"
                }
                guard clock.now.advanced(by: pause) < deadline else { break }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(250))
            }
            if !quiet { StandardStreams.writeError("fcm-emu health: not healthy after \(timeout): \(lastProblem)\n") }
            throw ExitCode(1)
        }

        /// The address to ask, read again on each try while the ready file is still to come.
        private func address() throws -> String {
            if let readyFile {
                guard let bytes = FileManager.default.contents(atPath: readyFile) else {
                    throw ControlClient.Failure(description: "\(readyFile) is not there yet")
                }
                guard let url = (try? JSONParser.parse(Array(bytes)))?["http"]?["url"]?.stringValue else {
                    throw ControlClient.Failure(description: "\(readyFile) has no http.url")
                }
                return url
            }
            return Self.defaultEmulator(emulator)
        }

        /// --emulator, else $FCM_EMU_URL, else the default port on loopback.
        static func defaultEmulator(_ given: String?) -> String {
            if let given { return given }
            if let env = ProcessInfo.processInfo.environment["FCM_EMU_URL"], !env.isEmpty { return env }
            return "http://127.0.0.1:9092"
        }
    }

    struct Version: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print fcm-emu's version (the same as --version).")

        func run() { print(FCMEmuVersion.current) }
    }
}
