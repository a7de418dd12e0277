// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where and how `serve` listens.
public struct ServerConfiguration: Sendable, Equatable {
    /// Loopback unless told otherwise: the emulator accepts any sender in lax setups.
    public var host = "127.0.0.1"
    /// 0 picks a free port; the bound one is in `info` and the ready file.
    public var httpPort = 9092
    /// Bodies larger than this are refused with 413 before they are read.
    public var maxBodyBytes = 8 << 20
    /// Connections silent this long are closed.
    public var idleTimeoutSeconds: Int64 = 120
    /// How often a wall-driven clock is brought up to date.
    public var tickMillis: Int64 = 10

    public init() {}
}

/// A running emulator: the HTTP listener, the clock tick and the info document.
/// `fcm-emu serve` and the live tests start it the same way.
public final class EmulatorServer: Sendable {
    public let emulator: Emulator
    public let http: HTTPServer
    private let tick: Mutex<RepeatedTask?>
    private let infoBox: InfoBox

    private init(emulator: Emulator, http: HTTPServer, tick: RepeatedTask?, info: InfoBox) {
        self.emulator = emulator
        self.http = http
        self.tick = Mutex(tick)
        infoBox = info
    }

    /// The bound addresses and the demo project's credentials (what `--ready-file` holds).
    public var info: JSONValue { infoBox.read() }

    public var baseURL: String { "http://\(Self.urlHost(http.host)):\(http.port)" }

    public static func start(
        emulator: Emulator, configuration: ServerConfiguration, fronts: FrontConfiguration = FrontConfiguration(),
        group: any EventLoopGroup, logger: Logger, wallClock: Bool = true
    ) async throws -> EmulatorServer {
        let infoBox = InfoBox()
        let responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: configuration.maxBodyBytes, fronts: fronts) { infoBox.read() }
        let http = try await HTTPServer.start(
            host: configuration.host, port: configuration.httpPort, responder: responder, group: group,
            idleTimeout: .seconds(configuration.idleTimeoutSeconds), logger: logger
        )
        infoBox.write(Self.makeInfo(host: http.host, port: http.port, emulator: emulator))
        var task: RepeatedTask?
        if wallClock {
            let delay = TimeAmount.milliseconds(configuration.tickMillis)
            task = group.next().scheduleRepeatedTask(initialDelay: delay, delay: delay) { _ in emulator.tick() }
        }
        return EmulatorServer(emulator: emulator, http: http, tick: task, info: infoBox)
    }

    /// Stops the clock tick and closes the listener.
    public func shutdown() async {
        tick.withLock { $0?.cancel() }
        await http.close()
    }

    static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    static func makeInfo(host: String, port: Int, emulator: Emulator) -> JSONValue {
        let url = "http://\(urlHost(host)):\(port)"
        let demo = try? emulator.project(DemoProject.id)
        return .object(omittingNils: [
            ("version", .string(FCMEmuVersion.current)),
            ("pid", .int(Int(getpid()))),
            ("http", .object([("host", .string(host)), ("port", .int(port)), ("url", .string(url))])),
            ("controlApi", .string(url + ControlAPI.prefix)),
            (
                "demoProject",
                demo.map { p in
                    .object([
                        ("projectId", .string(p.id)), ("projectNumber", .string(p.number)), ("senderId", .string(p.number)),
                        ("serverKey", .string(p.serverKeys.first ?? "")),
                    ])
                }
            ),
            ("caCertificate", .null),
        ])
    }
}

/// Shares the info document between the routes (built before binding) and the server (which
/// learns the bound port after).
private final class InfoBox: Sendable {
    private let mutex = Mutex<JSONValue>(.object([]))

    func read() -> JSONValue { mutex.withLock { $0 } }

    func write(_ value: JSONValue) { mutex.withLock { $0 = value } }
}

/// The version printed by `--version` and served in `info`.
public enum FCMEmuVersion {
    public static let current = "0.1.0"
}
