// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMHTTP
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FCMEmu {
    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a command against a fresh emulator, with the environment that points unmodified SDKs at it.",
            discussion: """
                Starts the emulator on free ports (HTTP, TLS, XMPP and the HTTPS proxy), runs the command with the \
                variables below set where they are not set already, and exits with the command's exit code; \
                SIGINT and SIGTERM are passed to the command, and the emulator stops with it.

                Set for the command: GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, FIREBASE_CONFIG; GOOGLE_APPLICATION_CREDENTIALS \
                (a key file whose token_uri points at the emulator) or, with --credentials metadata, GCE_METADATA_HOST \
                and GCE_METADATA_IP; HTTPS_PROXY, https_proxy, NO_PROXY (loopback), NODE_USE_ENV_PROXY=1, \
                JAVA_TOOL_OPTIONS (proxy properties); NODE_EXTRA_CA_CERTS (the CA), SSL_CERT_FILE and REQUESTS_CA_BUNDLE \
                (the CA after the system roots); and FCM_EMU_URL, FCM_EMU_CONTROL_API, FCM_EMU_HTTPS_URL, FCM_EMU_PROXY, \
                FCM_EMU_CA, FCM_EMU_XMPP_PORT, FCM_EMU_PROJECT, FCM_EMU_SENDER_ID, FCM_EMU_SERVER_KEY.

                Examples:
                  fcm-emu exec -- pytest tests/
                  fcm-emu exec --project my-app -- python send.py
                  fcm-emu exec --credentials metadata -- go test ./...
                """
        )

        @Option(help: "The project the SDK acts for; created when it does not exist (default: the demo project).")
        var project = DemoProject.id

        @Option(help: "key-file (GOOGLE_APPLICATION_CREDENTIALS) or metadata (the GCE metadata server, no key file).")
        var credentials = EnvironmentPlan.Credentials.keyFile

        @Option(name: .customLong("set"), help: ArgumentHelp("Any `serve` setting, as key=value (repeatable).", valueName: "key=value"))
        var assignments: [String] = []

        @Option(name: .customLong("import"), help: "Start the emulator from this snapshot directory.", completion: .directory)
        var importDirectory: String?

        @Option(help: "Write the world to this snapshot directory when the command ends.", completion: .directory)
        var exportOnExit: String?

        @Option(help: "trace … critical (default warning, so the command's output stays its own).")
        var logLevel = "warning"

        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("give the command after --, e.g. fcm-emu exec -- pytest") }
        }

        func run() async throws {
            let snapshots = (importDirectory.map { ["--import", $0] } ?? []) + (exportOnExit.map { ["--export-on-exit", $0] } ?? [])
            var serve = try Serve.parse(["--port", "0", "--log-level", logLevel] + snapshots + assignments.flatMap { ["--set", $0] })
            serve.readyFile = nil
            var (options, file) = try serve.resolve(environment: [:])
            options.server.tlsPort = options.server.tlsPort == nil ? nil : 0
            options.xmppPort = options.xmppPort == nil ? nil : 0
            options.xmppTestPort = nil
            options.proxyPort = 0
            options.fronts.metadataProject = project
            RunningEmulator.bootstrapLogging(options)
            let running = try await RunningEmulator.start(options, file: file, logger: Logger(label: "fcm-emu"))
            let code = await runCommand(with: running)
            SnapshotLifecycle.exportAtExit(running, options, logger: Logger(label: "fcm-emu"))
            await running.stop()
            throw ExitCode(code)
        }

        private func runCommand(with running: RunningEmulator) async -> Int32 {
            let emulator = running.server.emulator
            if (try? emulator.project(project)) == nil {
                // A number derived from the id (FNV-1a), so the same project gets the same sender id every run.
                let hash = project.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
                _ = try? emulator.createProject(id: project, number: String(100_000_000_000 + hash % 899_999_999_999))
            }
            let work = NSTemporaryDirectory() + "fcm-emu-exec-\(getpid())"
            try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let bundle = work + "/ca-bundle.pem"
            if let ca = running.server.caCertificatePath { try? EnvironmentPlan.writeBundle(ca: ca, to: bundle) }
            var keyFile: String?
            if credentials == .keyFile {
                let answer = running.server.responder.respond(
                    HTTPRequest(
                        method: "GET", target: "\(ControlAPI.prefix)/projects/\(project)/serviceAccount",
                        headers: [("Host", "\(running.server.http.host):\(running.server.http.port)")]))
                if answer.status == 200 {
                    keyFile = work + "/service-account.json"
                    FileManager.default.createFile(atPath: work + "/service-account.json", contents: Data(answer.body))
                }
            }
            var plan = EnvironmentPlan(
                info: running.server.info, project: project, credentials: credentials, keyFile: keyFile, bundle: bundle)
            if let ca = running.server.caCertificatePath, JavaTrustStore.write(ca: ca, to: work + "/truststore.p12") {
                plan.javaTrustStore = work + "/truststore.p12"
            }
            var environment = ProcessInfo.processInfo.environment
            for (name, value) in plan.variables where environment[name] == nil { environment[name] = value }
            let child: ChildProcess
            switch ChildProcess.spawn(command, environment: environment) {
            case .success(let started): child = started
            case .failure(let error):
                FileHandle.standardError.write(
                    Data("fcm-emu exec: cannot run \(command[0]): \(String(cString: strerror(error.code.rawValue)))\n".utf8))
                return 127
            }
            // The command's process group gets the signals; the emulator stops once it has exited.
            let forward = ShutdownSignals { child.signal(SIGTERM) }
            let code = await child.exitCode()
            forward.cancel()
            return code
        }
    }
}

extension EnvironmentPlan.Credentials: ExpressibleByArgument {}
