// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMJSON
import Foundation

extension FCMEmu {
    struct Env: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the environment that points unmodified SDKs at a running emulator (as exec sets it).",
            discussion: """
                For IDE run configurations, compose files and shells. The key file and the CA bundle are written to \
                --dir. Start the emulator with --set proxyPort=… for HTTPS_PROXY to be part of it.

                Examples:
                  eval "$(fcm-emu env)"
                  fcm-emu env --format dotenv > .env
                  fcm-emu env --format json --credentials metadata
                """
        )

        enum Format: String, CaseIterable, ExpressibleByArgument {
            case shell, dotenv, json
        }

        @Option(help: "The emulator's HTTP address.")
        var emulator = "http://127.0.0.1:9092"

        @Option(help: "The project the SDK acts for (default: the demo project).")
        var project = DemoProject.id

        @Option(help: "key-file (GOOGLE_APPLICATION_CREDENTIALS) or metadata (the GCE metadata server).")
        var credentials = EnvironmentPlan.Credentials.keyFile

        @Option(help: "shell (export lines), dotenv (NAME=value) or json.")
        var format = Format.shell

        @Option(help: "Where to write the key file and the CA bundle (default: ~/.fcm-emu/env).", completion: .directory)
        var dir: String?

        func run() async throws {
            let info = try await fetch("/emulator/v1/info")
            let directory = dir ?? ServeOptions.defaultStateDirectory + "/env"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let bundle = directory + "/ca-bundle.pem"
            if let ca = info["caCertificate"]?.stringValue { try EnvironmentPlan.writeBundle(ca: ca, to: bundle) }
            var keyFile: String?
            if credentials == .keyFile {
                let account = try await fetch("/emulator/v1/projects/\(project)/serviceAccount")
                keyFile = directory + "/\(project)-service-account.json"
                FileManager.default.createFile(
                    atPath: directory + "/\(project)-service-account.json", contents: Data(account.encoded(.pretty).utf8))
            }
            if info["proxy"] == nil {
                FileHandle.standardError.write(
                    Data("fcm-emu env: the emulator has no proxy (--set proxyPort=…); HTTPS_PROXY is left out\n".utf8))
            }
            var plan = EnvironmentPlan(info: info, project: project, credentials: credentials, keyFile: keyFile, bundle: bundle)
            if let ca = info["caCertificate"]?.stringValue, JavaTrustStore.write(ca: ca, to: directory + "/truststore.p12") {
                plan.javaTrustStore = directory + "/truststore.p12"
            }
            print(Self.render(plan.variables, as: format), terminator: "")
        }

        static func render(_ variables: [(String, String)], as format: Format) -> String {
            switch format {
            case .json: return JSONValue.object(variables.map { ($0.0, .string($0.1)) }).encoded(.pretty) + "\n"
            case .dotenv: return variables.map { "\($0.0)=\(quoted($0.1))\n" }.joined()
            case .shell: return variables.map { "export \($0.0)=\(quoted($0.1))\n" }.joined()
            }
        }

        /// Single-quoted for the shell (and for dotenv readers, which take the same form).
        static func quoted(_ value: String) -> String { "'" + value.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

        private func fetch(_ path: String) async throws -> JSONValue {
            let answer = try await ControlClient(base: emulator).get(path)
            guard answer.status == 200, let json = try? JSONParser.parse(answer.body) else {
                throw ValidationError("\(emulator)\(path) answered \(answer.status): \(answer.text)")
            }
            return json
        }
    }
}
