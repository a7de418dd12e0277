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
                For IDE run configurations, compose files and shells. The key file (mode 0600), the CA bundle and, when \
                a JDK is installed, a Java trust store (the JDK's cacerts copied, never written) are written to --dir \
                (made 0700 when missing), each as a new file renamed into place. FCM_EMU_SENDER_ID and FCM_EMU_SERVER_KEY \
                are --project's. Start the emulator with --set proxyPort=… for HTTPS_PROXY and HTTP_PROXY to be part of it.

                --name-route adds exec's Python name route: sitecustomize.py in --dir/python, PYTHONPATH naming that \
                directory first (then the PYTHONPATH env runs with), and FCM_EMU_NAME_ROUTES, Google's names on the \
                emulator's TLS and XMPP ports (docs/unmodified-apps.md).

                Examples:
                  eval "$(fcm-emu env)"
                  fcm-emu env --format dotenv > .env
                  fcm-emu env --format json --credentials metadata
                  eval "$(fcm-emu env --name-route)"
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

        @Flag(help: "Add the Python name route (PYTHONPATH and FCM_EMU_NAME_ROUTES), as exec sets it.")
        var nameRoute = false

        func run() async throws {
            let info = try await fetch("/emulator/v1/info")
            let directory = dir ?? ServeOptions.defaultStateDirectory + "/env"
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let bundle = directory + "/ca-bundle.pem"
            if let ca = info["caCertificate"]?.stringValue { try EnvironmentPlan.writeBundle(ca: ca, to: bundle) }
            var keyFile: String?
            if credentials == .keyFile {
                let account = try await fetch("/emulator/v1/projects/\(project)/serviceAccount")
                // A new file (0600) renamed into place: a link planted at the name is replaced, not followed.
                keyFile = directory + "/\(project)-service-account.json"
                try PrivateFiles.write(Array(account.encoded(.pretty).utf8), to: directory + "/\(project)-service-account.json", mode: 0o600)
            }
            if info["proxy"] == nil {
                Self.say("fcm-emu env: the emulator has no proxy (--set proxyPort=…); HTTPS_PROXY and HTTP_PROXY are left out")
            }
            var plan = EnvironmentPlan(info: info, project: project, credentials: credentials, keyFile: keyFile, bundle: bundle)
            // Only a 404 means the project is missing; any other failure is said, not taken for that.
            if let made = try await fetch("/emulator/v1/projects/\(project)", missingIsNil: true) {
                plan.senderId = made["senderId"]?.stringValue
                plan.serverKey = made["serverKeys"]?.arrayValue?.first?.stringValue
            } else {
                Self.say("fcm-emu env: no project \(project) on the emulator; FCM_EMU_SENDER_ID and FCM_EMU_SERVER_KEY are left out")
            }
            if let ca = info["caCertificate"]?.stringValue {
                switch JavaTrustStore.write(ca: ca, to: directory + "/truststore.p12") {
                case .made: plan.javaTrustStore = directory + "/truststore.p12"
                case .noJDK: break
                case .failed(let reason):
                    Self.say("fcm-emu env: WARNING: no Java trust store (\(reason)); JAVA_TOOL_OPTIONS names none, so Java clients will not trust the emulator")
                }
            }
            var variables = plan.variables
            if nameRoute {
                let routes = NameRoute.routes(info: info)
                if routes.isEmpty {
                    Self.say("fcm-emu env: the emulator has no TLS or XMPP port; the Python name route is left out")
                } else {
                    let python = directory + "/python"
                    try FileManager.default.createDirectory(
                        atPath: python, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    try NameRoute.write(to: python)
                    let preset = ProcessInfo.processInfo.environment[NameRoute.pythonPath]
                    variables += [
                        (NameRoute.variable, NameRoute.table(routes)),
                        (NameRoute.pythonPath, NameRoute.pythonPath(directory: python, preset: preset)),
                    ]
                }
            }
            print(Self.render(variables, as: format), terminator: "")
        }

        static func say(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

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
            guard let json = try await fetch(path, missingIsNil: false) else { throw RuntimeFailure("\(emulator)\(path) answered 404") }
            return json
        }

        private func fetch(_ path: String, missingIsNil: Bool) async throws -> JSONValue? {
            let answer = try await ControlClient(base: emulator).get(path)
            if missingIsNil, answer.status == 404 { return nil }
            guard answer.status == 200, let json = try? JSONParser.parse(answer.body) else {
                throw RuntimeFailure("\(emulator)\(path) answered \(answer.status): \(answer.text)")
            }
            return json
        }
    }
}
