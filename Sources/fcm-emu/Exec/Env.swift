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
    struct Env: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the environment that points unmodified SDKs at a running emulator (as exec sets it).",
            discussion: """
                For IDE run configurations, compose files and shells. The key file (mode 0600), the CA bundle and, when \
                a JDK is installed, a Java trust store (the JDK's cacerts copied, never written) are written to --dir \
                (made 0700 when missing), each as a new file renamed into place. FCM_EMU_SENDER_ID and FCM_EMU_SERVER_KEY \
                are --project's.

                The emulator must have its HTTPS proxy on (`serve --set proxyPort=9094`; off by default, since it \
                stands in for Google's hosts and refuses others): without HTTPS_PROXY an SDK would send to the real \
                Google, so env stops with exit code 1 and says so. --no-proxy prints the rest all the same, for \
                clients routed by name (--name-route, the DNS route of docs/unmodified-apps.md).

                --name-route adds exec's Python name route: sitecustomize.py in --dir/python, PYTHONPATH naming that \
                directory first (then the PYTHONPATH env runs with), and FCM_EMU_NAME_ROUTES, Google's names on the \
                emulator's TLS and XMPP ports (docs/unmodified-apps.md).

                Examples:
                  fcm-emu serve --set proxyPort=9094 &
                  eval "$(fcm-emu env)"
                  eval "$(fcm-emu env --emulator /tmp/fcm.json)"   # by serve's --ready-file
                  fcm-emu env --format dotenv > .env
                  fcm-emu env --format json --credentials metadata
                  eval "$(fcm-emu env --name-route)"
                """
        )

        enum Format: String, CaseIterable, ExpressibleByArgument {
            case shell, dotenv, json
        }

        @Option(help: ArgumentHelp("The emulator's HTTP address, or the ready file its `serve --ready-file` wrote.", valueName: "url|ready-file"))
        var emulator = AttachedEmulator.defaultAddress

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

        @Flag(help: "Leave the proxy variables out, for clients routed otherwise (the name or DNS route); without it, no proxy is an error.")
        var noProxy = false

        func run() async throws {
            let attached = try await AttachedEmulator.connect(emulator)
            var info = attached.info
            if info["proxy"] == nil, !noProxy { throw attached.noProxy("fcm-emu env", otherwise: "or pass --no-proxy to leave the proxy variables out") }
            if noProxy { info = .object((info.objectValue ?? []).filter { $0.0 != "proxy" }) }
            if credentials == .metadata, let mismatch = await attached.metadataMismatch(project: project) {
                Self.say("fcm-emu env: " + mismatch)
            }
            let directory = dir ?? ServeOptions.defaultStateDirectory + "/env"
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let plan = try await attached.plan(project: project, credentials: credentials, in: directory, info: info) {
                Self.say("fcm-emu env: " + $0)
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

        static func say(_ line: String) { StandardStreams.writeError(line + "\n") }

        static func render(_ variables: [(String, String)], as format: Format) -> String {
            switch format {
            case .json: return JSONValue.object(variables.map { ($0.0, .string($0.1)) }).encoded(.pretty) + "\n"
            case .dotenv: return variables.map { "\($0.0)=\(quoted($0.1))\n" }.joined()
            case .shell: return variables.map { "export \($0.0)=\(quoted($0.1))\n" }.joined()
            }
        }

        /// Single-quoted for the shell (and for dotenv readers, which take the same form).
        static func quoted(_ value: String) -> String { "'" + value.replacing("'", with: #"'\''"#) + "'" }
    }
}
