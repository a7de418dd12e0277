// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where and how `serve` listens.
public struct ServerConfiguration: Sendable, Equatable {
    /// Loopback unless told otherwise: the emulator accepts any sender in lax setups.
    public var host = "127.0.0.1"
    /// 0 picks a free port; the bound one is in `info` and the ready file.
    public var httpPort = 9092
    /// TLS port (HTTP/2 and HTTP/1.1 by ALPN) with a certificate from the local CA; nil disables it.
    public var tlsPort: Int? = 9093
    /// Bodies larger than this are refused with 413 before they are read.
    public var maxBodyBytes = 8 << 20
    /// Connections silent this long are closed.
    public var idleTimeoutSeconds: Int64 = 120
    /// How often a wall-driven clock is brought up to date.
    public var tickMillis: Int64 = 10
    /// Host names (or `name:port`) the control API and the dashboard answer besides the loopback
    /// names and `host`; `*` takes any (docs/security.md).
    public var allowedHosts: [String] = []
    /// The control API's bearer token.
    public var controlToken = ControlTokenSetting.automatic

    public init() {}
}

/// `controlToken`: made at start when listening beyond loopback, given, or turned off.
public enum ControlTokenSetting: Sendable, Equatable {
    case automatic
    case off
    case value(String)

    /// The token for a listener on `host`: 128 random bits (SystemRandomNumberGenerator reads the
    /// kernel's CSPRNG) when `host` is not a loopback address, none on loopback.
    public func resolve(host: String) -> String? {
        switch self {
        case .off: return nil
        case .value(let token): return token
        case .automatic:
            let bare = HostRules.bare(host)
            guard !HostRules.isLoopback(bare.lowercased()) else { return nil }
            var generator = SystemRandomNumberGenerator()
            let words = [generator.next(), generator.next()] as [UInt64]
            return words.map { word in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
        }
    }
}

/// A running emulator: the HTTP listener, the clock tick and the info document.
/// `fcm-emu serve` and the live tests start it the same way.
public final class EmulatorServer: Sendable {
    public let emulator: Emulator
    public let http: HTTPServer
    /// The TLS listener, when enabled.
    public let https: HTTPServer?
    /// The CA certificate clients must trust for `https`, when enabled.
    public let caCertificatePath: String?
    /// Where the local CA lives, for other TLS listeners (XMPP) to issue from the same CA.
    public let tlsDirectory: String
    /// The routes every HTTP listener serves (also the proxy's, for absolute-form requests).
    public let responder: HTTPResponder
    /// What the control API asks for in `Authorization: Bearer`, when anything.
    public let controlToken: String?
    /// The TLS directory is a temporary one (no state directory), removed at shutdown.
    private let ownsTLSDirectory: Bool
    private let tick: Mutex<RepeatedTask?>
    private let infoBox: InfoBox

    private init(
        emulator: Emulator, http: HTTPServer, https: HTTPServer?, caCertificatePath: String?, tlsDirectory: String, tick: RepeatedTask?,
        info: InfoBox, responder: HTTPResponder, ownsTLSDirectory: Bool, controlToken: String?
    ) {
        self.emulator = emulator
        self.controlToken = controlToken
        self.responder = responder
        self.ownsTLSDirectory = ownsTLSDirectory
        self.http = http
        self.https = https
        self.caCertificatePath = caCertificatePath
        self.tlsDirectory = tlsDirectory
        self.tick = Mutex(tick)
        infoBox = info
    }

    /// The bound addresses and the demo project's credentials (what `--ready-file` holds).
    public var info: JSONValue { infoBox.read() }

    /// Adds what other listeners (XMPP) report to the info document.
    public func addInfo(_ key: String, _ value: JSONValue) {
        infoBox.modify { info in
            guard case .object(var pairs) = info else { return }
            pairs.removeAll { $0.0 == key }
            pairs.append((key, value))
            info = .object(pairs)
        }
    }

    public var baseURL: String { "http://\(Self.urlHost(http.host)):\(http.port)" }

    public static func start(
        emulator: Emulator, configuration: ServerConfiguration, fronts: FrontConfiguration = FrontConfiguration(),
        group: any EventLoopGroup, logger: Logger, wallClock: Bool = true
    ) async throws -> EmulatorServer {
        let infoBox = InfoBox()
        // Every network listener (HTTP, TLS, the proxy's routes) checks Host, Origin and the token.
        let token = configuration.controlToken.resolve(host: configuration.host)
        var fronts = fronts
        let clients = fronts.clients ?? ClientConnections()
        fronts.clients = clients
        fronts.access = AccessPolicy(
            listenHost: configuration.host, allowedHosts: configuration.allowedHosts, standInNames: Set(FrontHosts.all), controlToken: token,
            logger: logger)
        if configuration.controlToken == .off, !HostRules.isLoopback(configuration.host.lowercased()) {
            let warning =
                "controlToken=off while listening on \(configuration.host): anyone who reaches this port can read the server key "
                + "and service-account keys, and change or wipe the world"
            logger.warning("\(warning)")
        }
        if configuration.allowedHosts.contains("*") {
            logger.warning("allowedHosts=*: any Host is answered, so a DNS-rebinding page can reach the control API")
        }
        let responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: configuration.maxBodyBytes, fronts: fronts) {
            infoBox.read()
        }
        let http = try await ListenFailure.naming("HTTP", host: configuration.host, port: configuration.httpPort) {
            try await HTTPServer.start(
                host: configuration.host, port: configuration.httpPort, responder: responder, group: group,
                idleTimeout: .seconds(configuration.idleTimeoutSeconds), clients: clients, logger: logger
            )
        }
        var https: HTTPServer?
        var caPath: String?
        let tlsDirectory = try fronts.stateDirectory ?? Self.privateTemporaryDirectory()
        if let tlsPort = configuration.tlsPort {
            do {
                let (tls, path) = try TLSFiles.serverContext(directory: tlsDirectory, hosts: FrontHosts.https, alpn: ["h2", "http/1.1"])
                https = try await ListenFailure.naming("TLS", host: configuration.host, port: tlsPort) {
                    try await HTTPServer.start(
                        host: configuration.host, port: tlsPort, responder: responder, group: group,
                        idleTimeout: .seconds(configuration.idleTimeoutSeconds), tls: tls, clients: clients, logger: logger
                    )
                }
                caPath = path
            } catch {
                await http.close()
                // A CA made for this run only does not outlive a start that failed either.
                if fronts.stateDirectory == nil { try? FileManager.default.removeItem(atPath: tlsDirectory) }
                throw error
            }
        }
        infoBox.write(
            Self.makeInfo(host: http.host, port: http.port, https: https, caPath: caPath, emulator: emulator, controlToken: token))
        var task: RepeatedTask?
        if wallClock {
            let delay = TimeAmount.milliseconds(configuration.tickMillis)
            task = group.next().scheduleRepeatedTask(initialDelay: delay, delay: delay) { _ in emulator.tick() }
        }
        return EmulatorServer(
            emulator: emulator, http: http, https: https, caCertificatePath: caPath, tlsDirectory: tlsDirectory, tick: task, info: infoBox,
            responder: responder, ownsTLSDirectory: fronts.stateDirectory == nil, controlToken: token
        )
    }

    /// Stops the clock tick and closes the listeners.
    public func shutdown() async {
        for closing in await beginShutdown() { await closing.value }
        removeOwnedFiles()
    }

    /// Stops the clock tick, ends live answers and stops accepting; the tasks end once the
    /// connections have finished (`Listener.beginClose`), after which `removeOwnedFiles`.
    public func beginShutdown() async -> [Task<Void, Never>] {
        tick.withLock { $0?.cancel() }
        // Event streams say goodbye (`event: shutdown`) and waits answer with what there is.
        responder.live.endAll()
        var closing = [await http.beginClose()]
        if let https { closing.append(await https.beginClose()) }
        return closing
    }

    /// A CA made for this run only (its key included) does not outlive it.
    public func removeOwnedFiles() {
        if ownsTLSDirectory { try? FileManager.default.removeItem(atPath: tlsDirectory) }
    }

    /// The dashboard's address; the token rides in the fragment, which browsers never send
    /// (RFC 3986 §3.5), and the page moves it to sessionStorage.
    public static func dashboardURL(base: String, token: String?) -> String {
        base + Dashboard.prefix + "/" + (token.map { "#token=" + $0 } ?? "")
    }

    /// `host` as a URL writes it: an IPv6 address in brackets (RFC 3986 §3.2.2).
    /// The host of a URL a client on this machine can open: a wildcard listen address (`0.0.0.0`,
    /// `::`) is no address to connect to (browsers refuse it, and it is no name the Host rule
    /// knows), so its loopback twin stands in, as it does in the ready file and the banner.
    public static func urlHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::", "[::]": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }

    static func makeInfo(
        host: String, port: Int, https: HTTPServer?, caPath: String?, emulator: Emulator, controlToken: String? = nil
    ) -> JSONValue {
        let url = "http://\(urlHost(host)):\(port)"
        let demo = try? emulator.project(DemoProject.id)
        return .object(omittingNils: [
            ("version", .string(FCMEmuVersion.current)),
            ("pid", .int(Int(getpid()))),
            ("http", .object([("host", .string(host)), ("port", .int(port)), ("url", .string(url))])),
            (
                "https",
                https.map { s in
                    .object([("host", .string(host)), ("port", .int(s.port)), ("url", .string("https://\(urlHost(host)):\(s.port)"))])
                }
            ),
            ("controlApi", .string(url + ControlAPI.prefix)),
            ("dashboard", .string(dashboardURL(base: url, token: controlToken))),
            // The ready file is how harnesses learn it; `info` itself is read only with it.
            ("controlToken", controlToken.map(JSONValue.string)),
            (
                "demoProject",
                demo.map { p in
                    .object([
                        ("projectId", .string(p.id)), ("projectNumber", .string(p.number)), ("senderId", .string(p.number)),
                        ("serverKey", .string(p.serverKeys.first ?? "")),
                    ])
                }
            ),
            ("caCertificate", caPath.map(JSONValue.string) ?? .null),
        ])
    }
}

/// Shares the info document between the routes (built before binding) and the server (which
/// learns the bound port after).
private final class InfoBox: Sendable {
    private let mutex = Mutex<JSONValue>(.object([]))

    func read() -> JSONValue { mutex.withLock { $0 } }

    func write(_ value: JSONValue) { mutex.withLock { $0 = value } }

    /// Changes the document in one hold of the lock: listeners that bind at once each add theirs.
    func modify(_ change: (inout JSONValue) -> Void) { mutex.withLock { change(&$0) } }
}

extension EmulatorServer {
    /// Where an emulator with no state directory keeps its CA and keys: a directory made fresh by
    /// mkdtemp (a random name, mode 0700, never one that exists already), so another local user
    /// can neither plant a CA it would load nor read the key it writes. A name made of the pid and
    /// port was both predictable and reused.
    static func privateTemporaryDirectory() throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/fcm-emu-tls-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw IOError(errnoCode: errno, reason: "mkdtemp") }
        return String(cString: made)
    }
}
