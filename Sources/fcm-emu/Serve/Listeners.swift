// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMMCS
import FCMServer
import FCMTransport
import FCMXMPP
import Logging
import NIOCore
import ServiceLifecycle

/// serve's listeners and the clock's tick as services (`ListenerService`), in the order the group
/// starts them and stops them the other way round: the tick, HTTP with TLS, each XMPP port, MCS,
/// then the proxy, which stands in for the others' ports and so waits until they have bound.
/// XMPP and MCS issue their certificates from the HTTP server's CA, so they wait for it.
struct Listeners {
    let options: ServeOptions
    let fronts: FrontConfiguration
    let emulator: Emulator
    let group: any EventLoopGroup
    let startup: Startup
    let drains: Drains
    let logger: Logger

    /// Made once: each listener service counts itself in `drains` as it is made.
    func makeServices() -> [any Service] {
        var services: [any Service] = [ClockTick(emulator: emulator, every: .milliseconds(options.server.tickMillis))]
        services.append(listener("the emulator") { try await http() })
        let settings = [("xmppPort", options.xmppPort), ("xmppTestPort", options.xmppTestPort)].filter { $0.1 != nil }
        let router = CCSRouter(emulator: emulator)
        for (index, (setting, port)) in settings.enumerated() {
            guard let port else { continue }
            services.append(listener("the XMPP server") { try await xmpp(index, setting: setting, port: port, router: router) })
        }
        if let port = options.mcsPort { services.append(listener("the MCS server") { try await mcs(port: port) }) }
        if let port = options.proxyPort { services.append(listener("the proxy") { try await proxy(port: port) }) }
        return services
    }

    private func listener(
        _ what: String, bind: @escaping @Sendable () async throws -> @Sendable () async -> [Task<Void, Never>]
    ) -> ListenerService {
        ListenerService(what: what, startup: startup, drains: drains, bind: bind)
    }

    /// HTTP and TLS: the emulator's fronts, control API and dashboard, and its info document.
    private func http() async throws -> @Sendable () async -> [Task<Void, Never>] {
        // The tick is a service of its own (`ClockTick`).
        let server = try await EmulatorServer.start(
            emulator: emulator, configuration: options.server, fronts: fronts, group: group, logger: logger, wallClock: false)
        startup.bound { $0.server = server }
        return { await server.beginShutdown() }
    }

    /// The emulator's HTTP server, once bound: the other listeners use its CA and its info document.
    private func server() async throws -> EmulatorServer {
        guard let server = try await startup.wait(until: { $0.server != nil }).server else { throw CancellationError() }
        return server
    }

    private func xmpp(_ index: Int, setting: String, port: Int, router: CCSRouter) async throws -> @Sendable () async -> [Task<Void, Never>]
    {
        let server = try await server()
        var configuration = XMPPServer.Configuration()
        configuration.host = options.server.host
        configuration.port = port
        configuration.laxAuth = options.fronts.authMode == .lax
        configuration.drainAfterSeconds = options.xmppDrainAfterSeconds
        configuration.prefixedForm = options.xmppPrefixedForm
        configuration.loginTimeoutSeconds = options.xmppLoginTimeoutSeconds
        configuration.idleTimeoutSeconds = options.xmppIdleTimeoutSeconds
        let (group, logger) = (group, logger)
        let listener = try await ListenFailure.naming("XMPP, \(setting)", host: options.server.host, port: port) {
            try await XMPPServer.start(
                configuration: configuration, tlsDirectory: server.tlsDirectory, emulator: server.emulator, router: router,
                group: group, logger: logger)
        }
        let host = options.server.host
        startup.bound { bound in
            bound.xmpp[index] = listener
            let listeners = bound.xmpp.sorted { $0.key < $1.key }.map(\.value)
            server.addInfo(
                "xmpp",
                .object([
                    ("host", .string(host)), ("ports", .array(listeners.map { .int($0.port) })),
                    ("caCertificate", listeners.first.map { .string($0.caCertificatePath) } ?? .null),
                ]))
        }
        return { [await listener.beginClose()] }
    }

    /// The MCS listener real receivers connect to, with a certificate from the HTTP server's CA.
    private func mcs(port: Int) async throws -> @Sendable () async -> [Task<Void, Never>] {
        let server = try await server()
        var configuration = MCSServer.Configuration()
        configuration.host = options.server.host
        configuration.port = port
        let (group, logger) = (group, logger)
        let mcs = try await ListenFailure.naming("MCS, mcsPort", host: options.server.host, port: port) {
            try await MCSServer.start(
                configuration: configuration, tlsDirectory: server.tlsDirectory, emulator: server.emulator, group: group, logger: logger)
        }
        server.addInfo(
            "mcs",
            .object([
                ("host", .string(options.server.host)), ("port", .int(mcs.port)),
                ("standsInFor", .string("\(MCSServer.host):\(MCSServer.fcmPort)")),
            ]))
        startup.bound { $0.mcs = mcs }
        return { [await mcs.beginClose()] }
    }

    /// The HTTPS proxy, standing in for Google's hosts with this process's own ports.
    private func proxy(port: Int) async throws -> @Sendable () async -> [Task<Void, Never>] {
        let expected = startup.expected
        let bound = try await startup.wait { expected.othersThanProxy($0) }
        guard let server = bound.server else { throw CancellationError() }
        // The listeners bind in the order of these settings, the ones turned off skipped.
        let fcmPorts = zip(XMPPServer.fcmPorts, [options.xmppPort, options.xmppTestPort]).compactMap { $1 == nil ? nil : $0 }
        var xmppPorts: [Int: Int] = [:]
        for (index, fcmPort) in fcmPorts.enumerated() { xmppPorts[fcmPort] = bound.xmpp[index]?.port }
        let standIns = GoogleStandIns.make(tlsPort: server.https?.port, xmppPorts: xmppPorts, mcsPort: bound.mcs?.port)
        let ownPorts = [server.http.port, server.https?.port, bound.mcs?.port].compactMap { $0 } + bound.xmpp.values.map(\.port)
        let (group, logger) = (group, logger)
        let proxy = try await ListenFailure.naming("proxy, proxyPort", host: options.server.host, port: port) {
            try await ProxyServer.start(
                host: options.server.host, port: port, standIns: standIns,
                tunnel: TunnelPolicy(anyHostOffThisMachine: options.proxyTunnel, hosts: options.proxyTunnelHosts),
                ownPorts: Set(ownPorts), responder: server.responder,
                record: { [emulator = server.emulator] in emulator.recordProxyConnect($0) }, group: group,
                idleTimeout: .seconds(options.server.idleTimeoutSeconds), logger: logger)
        }
        // Named as the other listeners are: host, port, and a URL (IPv6 in brackets).
        let host = options.server.host
        server.addInfo(
            "proxy",
            .object([
                ("host", .string(host)), ("port", .int(proxy.port)),
                ("url", .string("http://\(EmulatorServer.urlHost(host)):\(proxy.port)")),
            ]))
        startup.bound { $0.proxy = proxy }
        return { [await proxy.beginClose()] }
    }
}
