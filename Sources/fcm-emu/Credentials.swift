// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FCMEmu {
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a service-account key file for a project of a running emulator.",
            discussion: """
                The key file's token_uri points at the emulator, so google-auth based SDKs (Python, Java, Go) get \
                access tokens from it with no code change. The key is made by the emulator on first request and kept \
                in its state directory.

                Examples:
                  fcm-emu credentials --project my-app --out service-account.json
                  GOOGLE_APPLICATION_CREDENTIALS=service-account.json python app.py
                """
        )

        @Option(help: "The project id (default: the demo project).")
        var project = "demo-fcm-emu"

        @Option(help: "The emulator's HTTP address.")
        var emulator = "http://127.0.0.1:9092"

        @Option(help: "Write the key file here instead of standard output.", completion: .file())
        var out: String?

        func run() async throws {
            let answer = try await ControlClient(base: emulator).get("/emulator/v1/projects/\(project)/serviceAccount")
            guard answer.status == 200 else { throw RuntimeFailure("the emulator answered \(answer.status): \(answer.text)") }
            let data = Data(answer.body)
            if let out {
                try data.write(to: URL(fileURLWithPath: out))
                StandardStreams.writeError("wrote \(out)\n")
            } else {
                StandardStreams.write(Array(data))
            }
        }
    }
}
