// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMControl
import FCMCore
import FCMJSON
import FCMServer
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import NIOCore
import ServiceLifecycle

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
                Starts the emulator on free ports (HTTP, TLS, XMPP and the HTTPS proxy, which tunnels the command's \
                other HTTPS to hosts off this machine: --set proxyTunnel=false refuses them), runs the command with the \
                variables below set where they are not set already, and exits with the command's exit code; \
                SIGINT and SIGTERM are passed to the command, and the emulator stops with it.

                Set for the command: GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, FIREBASE_CONFIG; GOOGLE_APPLICATION_CREDENTIALS \
                (a key file whose token_uri points at the emulator) or, with --credentials metadata, GCE_METADATA_HOST \
                and GCE_METADATA_IP; HTTPS_PROXY, https_proxy, HTTP_PROXY and http_proxy (the proxy answers plain HTTP \
                to the metadata server, 169.254.169.254 too, and forwards the rest where it would tunnel), NO_PROXY \
                (loopback), NODE_USE_ENV_PROXY=1, \
                JAVA_TOOL_OPTIONS (proxy properties, and a trust store when a JDK is installed); NODE_EXTRA_CA_CERTS \
                (the CA), SSL_CERT_FILE, REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE (the CA after the system roots); and \
                FCM_EMU_URL, FCM_EMU_CONTROL_API, FCM_EMU_HTTPS_URL, FCM_EMU_PROXY, FCM_EMU_CA, FCM_EMU_XMPP_PORT, \
                FCM_EMU_PROJECT, FCM_EMU_SENDER_ID and FCM_EMU_SERVER_KEY (--project's).

                For Python clients that ignore HTTPS_PROXY (aiohttp, send_each_async's httpx, raw sockets): PYTHONPATH \
                (a private directory first, yours after it) holding a sitecustomize.py that answers socket.getaddrinfo \
                for Google's names with the emulator's ports, listed in FCM_EMU_NAME_ROUTES, and then runs the next \
                sitecustomize on the path. --no-name-route leaves both out (docs/unmodified-apps.md).

                A variable you have set is kept, and a kept one that keeps the command from the emulator (HTTPS_PROXY, \
                a NO_PROXY naming Google's hosts, GOOGLE_APPLICATION_CREDENTIALS, JAVA_TOOL_OPTIONS, …) is named on \
                stderr with the fix. The CA variables are the exception: a bundle your SSL_CERT_FILE, REQUESTS_CA_BUNDLE, \
                CURL_CA_BUNDLE or NODE_EXTRA_CA_CERTS names is copied with the emulator's CA added, the variable points \
                at the copy, and one stderr line says so.

                The key file (mode 0600), the bundles and the Java trust store (the JDK's cacerts copied, never written) \
                are kept in a new private directory ($TMPDIR/fcm-emu-exec-XXXXXX, mode 0700), removed when the command ends.

                --attach runs the command against a `serve` that is running instead, so its dashboard and control API \
                show what the command sent: give the ready file that serve wrote (--ready-file) or its address. That \
                serve needs its HTTPS proxy (`--set proxyPort=9094`, or 0 for a free port), or exec --attach stops with \
                exit code 1 before running anything: without it the SDK would reach the real Google. Its settings stay \
                its own (the proxy tunnels other hosts only with its proxyTunnel setting), so --set, --import and \
                --export-on-exit do not apply; --project is created on it when missing (with --credentials metadata, \
                its metadataProject setting must be --project: said on stderr when not).

                --isolate fails closed: the command and the emulator run in private network and mount namespaces \
                (unshare(1); a user namespace too when not root) where only loopback exists. Google's names resolve to \
                127.0.0.1 there (a private /etc/hosts) and the emulator serves TLS on 443 (CCS on 5235, MCS on 5228), \
                so a client that ignores every variable still reaches it; any other host fails, and when the command \
                ends, each one it looked up or asked the proxy for is named on stderr with what would have reached it. \
                The command's own non-Google HTTP fails too. Without namespaces, --isolate stops at once with exit code 2.

                Examples:
                  fcm-emu exec -- pytest tests/
                  fcm-emu exec --isolate -- pytest tests/
                  fcm-emu exec --project my-app -- python send.py
                  fcm-emu exec --credentials metadata -- go test ./...
                  fcm-emu serve --set proxyPort=9094 --ready-file /tmp/fcm.json &
                  fcm-emu exec --attach /tmp/fcm.json -- python send.py
                """
        )

        @Option(help: "The project the SDK acts for; created when it does not exist (default: the demo project).")
        var project = DemoProject.id

        @Option(
            help: ArgumentHelp(
                "Run against this running serve, not a fresh emulator: the ready file it wrote or its http:// address (its proxy on).",
                valueName: "ready-file|url"))
        var attach: String?

        @Option(help: "key-file (GOOGLE_APPLICATION_CREDENTIALS) or metadata (the GCE metadata server, no key file).")
        var credentials = EnvironmentPlan.Credentials.keyFile

        @Option(name: .customLong("set"), help: ArgumentHelp("Any `serve` setting, as key=value (repeatable).", valueName: "key=value"))
        var assignments: [String] = []

        @Option(name: .customLong("import"), help: "Start the emulator from this snapshot directory.", completion: .directory)
        var importDirectory: String?

        @Option(help: "Write the world to this snapshot directory when the command ends.", completion: .directory)
        var exportOnExit: String?

        @Flag(help: "Set neither PYTHONPATH nor FCM_EMU_NAME_ROUTES: Python resolves Google's names as usual.")
        var noNameRoute = false

        @Flag(help: "Fail closed: run in private network and mount namespaces where only the emulator is reachable.")
        var isolate = false

        /// The namespaces exec --isolate started in: set by exec for the copy of itself it runs inside new ones.
        @Option(help: .hidden)
        var insideNamespace: String?

        @Option(help: "trace … critical (default warning, so the command's output stays its own).")
        var logLevel = "warning"

        @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("give the command after --, e.g. fcm-emu exec -- pytest") }
            if attach != nil, !assignments.isEmpty || importDirectory != nil || exportOnExit != nil {
                throw ValidationError("--set, --import and --export-on-exit are for an emulator exec starts; --attach uses the running one as it is")
            }
            if isolate, attach != nil {
                throw ValidationError("--isolate runs an emulator of its own inside the namespaces; a running serve outside them is out of reach")
            }
            if insideNamespace != nil, !isolate { throw ValidationError("--inside-namespace is exec --isolate's own") }
        }

        func run() async throws {
            if let attach { return try await runAttached(to: attach) }
            if isolate, insideNamespace == nil { return try await runIsolatedOutside() }
            let isolation: Isolation?
            do {
                isolation = try insideNamespace.map { try Isolation(outside: $0) }
            } catch {
                throw Self.cannotIsolate("\(error)")
            }
            defer { isolation?.finish() }
            let snapshots = (importDirectory.map { ["--import", $0] } ?? []) + (exportOnExit.map { ["--export-on-exit", $0] } ?? [])
            var serve = try Serve.parse(["--port", "0", "--log-level", logLevel] + snapshots + assignments.flatMap { ["--set", $0] })
            serve.readyFile = nil
            var (options, file) = try serve.resolve(environment: [:])
            options.useFreePorts()
            options.proxyPort = 0
            // HTTPS_PROXY sends all of the command's HTTPS here: what is not Google's goes through
            // untouched (to hosts off this machine; TunnelPolicy) unless told otherwise.
            let loopback = ["127.0.0.1", "localhost", "::1"].contains(options.server.host)
            if loopback, !assignments.contains(where: { $0.hasPrefix("proxyTunnel=") }) {
                options.proxyTunnel = true
            }
            options.fronts.metadataProject = project
            isolation?.configure(&options)
            RunningEmulator.bootstrapLogging(options)
            let logger = Logger(label: "fcm-emu")
            let running = try RunningEmulator.prepare(options, file: file, logger: logger)
            // The command stops first (a signal is passed on to it), then the autosave, then the
            // listeners and the emulator, exported if asked (EmulatorServices.swift); the command's
            // status is exec's. It starts once every listener has bound.
            let resolver: Channel?
            do {
                resolver = try await isolation?.startResolver(running.emulator)
            } catch {
                await running.stopEventLoops()
                throw Self.cannotIsolate("cannot answer lookups on 127.0.0.1:53: \(error)")
            }
            let command = CommandService {
                // A listener that cannot bind ends the group with its error; a stop may come first.
                let bound = try? await cancelWhenGracefulShutdown { try await running.listening() }
                var code: Int32 = 1
                if let server = bound?.server { code = await runCommand(with: server) }
                try? await resolver?.close()
                isolation?.report(running.emulator)
                return code
            }
            let services = try await EmulatorServices.emulator(running, options, logger: logger) + [command]
            do {
                try await EmulatorServices.run(services, logger: logger)
            } catch is EmulatorService.ExportFailed {
                // The command's status stands: it ran; the export's failure is in the log.
            }
            throw ExitCode(command.code.load(ordering: .acquiring))
        }

        /// The same environment for a running `serve`, so its dashboard and control API show what
        /// the command sent; its proxy is required, since without it the SDK reaches the real Google.
        private func runAttached(to target: String) async throws {
            let attached = try await AttachedEmulator.connect(target)
            guard attached.info["proxy"] != nil else {
                throw attached.noProxy("fcm-emu exec --attach", otherwise: "or run `fcm-emu exec -- …` for an emulator of its own")
            }
            try await attached.ensureProject(project, number: Self.projectNumber(project))
            if credentials == .metadata, let mismatch = await attached.metadataMismatch(project: project) {
                Self.say("fcm-emu exec: " + mismatch)
            }
            let command = CommandService {
                await runCommand(info: attached.info, ca: attached.info["caCertificate"]?.stringValue) { work in
                    try await attached.plan(project: project, credentials: credentials, in: work, info: attached.info) {
                        Self.say("fcm-emu exec: " + $0)
                    }
                }
            }
            // Only the command, in a group for its signals: SIGINT and SIGTERM go on to it.
            try await EmulatorServices.run([command], logger: Logger(label: "fcm-emu") { _ in SwiftLogNoOpLogHandler() })
            throw ExitCode(command.code.load(ordering: .acquiring))
        }

        /// A number derived from the id (FNV-1a), so the same project gets the same sender id every run.
        static func projectNumber(_ project: String) -> String {
            let hash = project.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            return String(100_000_000_000 + hash % 899_999_999_999)
        }

        /// Prepares the project, then runs the command in the emulator's environment and returns its status.
        private func runCommand(with server: EmulatorServer) async -> Int32 {
            let emulator = server.emulator
            if (try? emulator.project(project)) == nil {
                do {
                    _ = try emulator.createProject(id: project, number: Self.projectNumber(project))
                } catch {
                    Self.say("fcm-emu exec: cannot create project '\(project)': \(error.message)")
                    return 2
                }
            }
            return await runCommand(info: server.info, ca: server.caCertificatePath) { work in prepare(server, in: work) }
        }

        /// Makes the private directory, has `prepare` write the files into it, and runs the command with
        /// the environment; returns its status.
        private func runCommand(info: JSONValue, ca: String?, prepare: (String) async throws -> EnvironmentPlan) async -> Int32 {
            // A directory nobody else can have made or entered: a random name, mode 0700.
            let work: String
            do {
                work = try PrivateFiles.makeDirectory(prefix: "fcm-emu-exec-")
            } catch {
                Self.say("fcm-emu exec: \(error)")
                return 125
            }
            defer { try? FileManager.default.removeItem(atPath: work) }
            let preset = ProcessInfo.processInfo.environment
            var environment = preset
            let plan: EnvironmentPlan
            do {
                plan = try await prepare(work)
            } catch {
                Self.say("fcm-emu exec: \(error)")
                return 125
            }
            let route = noNameRoute ? [] : nameRoute(info, in: work)
            let variables = plan.variables + route
            // Set where not set already, and said where a preset value keeps the command from the emulator;
            // the CA bundles the caller names are merged instead, and PYTHONPATH gets ours in front.
            for (name, value) in variables where preset[name] == nil { environment[name] = value }
            if !route.isEmpty {
                environment[NameRoute.pythonPath] = NameRoute.pythonPath(directory: work + "/python", preset: preset[NameRoute.pythonPath])
            }
            for line in PresetEnvironment.conflicts(preset: preset, plan: variables, credentials: credentials) {
                Self.say(line)
            }
            if let ca, let pem = try? String(contentsOfFile: ca, encoding: .utf8) {
                let merge = PresetEnvironment.mergeBundles(preset: preset, caPEM: pem, directory: work)
                for (name, value) in merge.values { environment[name] = value }
                for name in PresetEnvironment.caVariables where environment[name]?.isEmpty == true {
                    environment[name] = plan.variables.first { $0.0 == name }?.1
                }
                for line in merge.notes { Self.say(line) }
            }
            let child: ChildProcess
            switch ChildProcess.spawn(command, environment: environment) {
            case .success(let started): child = started
            case .failure(let error):
                Self.say("fcm-emu exec: cannot run \(command[0]): \(String(cString: strerror(error.code.rawValue)))")
                return 127
            }
            // A signal to exec (the group's graceful shutdown) goes on to the command's process
            // group as SIGTERM; the emulator stops once the command has exited.
            return await withGracefulShutdownHandler {
                await child.exitCode()
            } onGracefulShutdown: {
                child.signal(SIGTERM)
            }
        }

        /// The key file (0600), the CA bundle and the Java trust store in `work`, and the plan naming them.
        private func prepare(_ server: EmulatorServer, in work: String) -> EnvironmentPlan {
            let bundle = work + "/ca-bundle.pem"
            if let ca = server.caCertificatePath {
                do { try EnvironmentPlan.writeBundle(ca: ca, to: bundle) } catch { Self.say("fcm-emu exec: no CA bundle: \(error)") }
            }
            var keyFile: String?
            if credentials == .keyFile {
                let answer = server.responder.respond(
                    HTTPRequest(
                        method: "GET", target: "\(ControlAPI.prefix)/projects/\(project)/serviceAccount",
                        headers: [("Host", "\(server.http.host):\(server.http.port)")]))
                if answer.status == 200 {
                    do {
                        try PrivateFiles.write(answer.body, to: work + "/service-account.json", mode: 0o600)
                        keyFile = work + "/service-account.json"
                    } catch {
                        Self.say("fcm-emu exec: no key file for \(project): \(error)")
                    }
                } else {
                    let said = String(decoding: answer.body, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
                    Self.say("fcm-emu exec: no key file for \(project): the emulator answered \(answer.status): \(said)")
                }
            }
            var plan = EnvironmentPlan(
                info: server.info, project: project, credentials: credentials, keyFile: keyFile, bundle: bundle)
            if let made = try? server.emulator.project(project) {
                plan.senderId = made.number
                plan.serverKey = made.serverKeys.first
            }
            if let ca = server.caCertificatePath {
                switch JavaTrustStore.write(ca: ca, to: work + "/truststore.p12") {
                case .made: plan.javaTrustStore = work + "/truststore.p12"
                case .noJDK: break
                case .failed(let reason):
                    Self.say(
                        "fcm-emu exec: WARNING: no Java trust store (\(reason)); JAVA_TOOL_OPTIONS names none, "
                            + "so Java clients will not trust the emulator")
                }
            }
            return plan
        }

        /// The Python name route: `sitecustomize.py` in `work/python`, and the variable with its table;
        /// nothing when there is no route or the file cannot be written (said).
        private func nameRoute(_ info: JSONValue, in work: String) -> [(String, String)] {
            if info["https"] == nil {
                Self.say("fcm-emu exec: no TLS port (tlsPort=off), so the Python name route sends none of Google's HTTPS hosts here")
            }
            let routes = NameRoute.routes(info: info)
            guard !routes.isEmpty else { return [] }
            do {
                // Inside the private directory (0700), so a fixed name is ours.
                try FileManager.default.createDirectory(atPath: work + "/python", withIntermediateDirectories: false)
                try NameRoute.write(to: work + "/python")
            } catch {
                Self.say("fcm-emu exec: no Python name route (\(error)); Python clients that ignore HTTPS_PROXY reach the real Google")
                return []
            }
            return [(NameRoute.variable, NameRoute.table(routes))]
        }

        static func say(_ line: String) { StandardStreams.writeError(line + "\n") }
    }
}

extension EnvironmentPlan.Credentials: ExpressibleByArgument {}
