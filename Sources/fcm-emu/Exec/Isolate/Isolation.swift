// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMMCS
import FCMTransport
import NIOCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `exec --isolate` inside its namespaces (docs/unmodified-apps.md, "Fail closed: exec --isolate"):
/// the private `/etc/hosts` and `/etc/resolv.conf` bind-mounted from exec's private directory,
/// `lo` up, the emulator on Google's own ports, the resolver on 127.0.0.1:53, and the report of
/// what the command tried to reach that is not there.
final class Isolation: Sendable {
    /// The private directory the mounted files live in (mode 0700, removed by `finish`).
    let directory: String
    let names: IsolatedNames
    let lookups = LookupLog()
    /// Whether `/etc/resolv.conf` is ours: when it could not be mounted, lookups still fail (no
    /// network) but are not counted.
    let resolverMounted: Bool

    /// Sets the namespaces up; `outside` is the identity of the namespaces exec was started in,
    /// which these must not be (so `--inside-namespace` by hand never mounts over the machine's files).
    init(outside: String) throws {
        guard Namespace.identity() != outside else {
            throw Namespace.Failure(description: "--inside-namespace is exec --isolate's own, for the process it starts in new namespaces")
        }
        var host = [CChar](repeating: 0, count: 256)
        let hostname =
            gethostname(&host, host.count - 1) == 0
            ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        names = IsolatedNames(hostname: hostname)
        directory = try PrivateFiles.makeDirectory(prefix: "fcm-emu-exec-")
        do {
            try PrivateFiles.write(Array(names.hostsFile().utf8), to: directory + "/hosts", mode: 0o644)
            try PrivateFiles.write(Array(IsolatedNames.resolvConf.utf8), to: directory + "/resolv.conf", mode: 0o644)
            try Namespace.bringLoopbackUp()
            try Namespace.bindMount(directory + "/hosts", over: "/etc/hosts")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        do {
            try Namespace.bindMount(directory + "/resolv.conf", over: "/etc/resolv.conf")
            resolverMounted = true
        } catch {
            // A dangling /etc/resolv.conf link (no resolver configured) cannot be mounted over;
            // with no network, every lookup fails anyway, just without being named.
            FCMEmu.Exec.say("fcm-emu exec --isolate: \(error); lookups of other hosts still fail, but the report cannot name them")
            resolverMounted = false
        }
    }

    /// The emulator on the ports Google's names are reached on (HTTPS 443, CCS 5235, MCS 5228),
    /// where `/etc/hosts` sends them; the proxy tunnels nowhere, since there is nowhere to go.
    func configure(_ options: inout ServeOptions) {
        if options.server.tlsPort != nil { options.server.tlsPort = 443 }
        if options.xmppPort != nil { options.xmppPort = 5235 }
        if options.mcsPort != nil { options.mcsPort = MCSServer.fcmPort }
        options.proxyTunnel = false
        options.proxyTunnelHosts = []
    }

    /// The resolver on 127.0.0.1:53, recording into `emulator`'s events.
    func startResolver(_ emulator: Emulator) async throws -> Channel? {
        guard resolverMounted else { return nil }
        return try await IsolatedResolver.start(port: 53, names: names, log: lookups, emulator: emulator)
    }

    /// The report on stderr, when the command tried a host it cannot reach here.
    func report(_ emulator: Emulator) {
        let refused = (try? emulator.events(EventQuery(kinds: [.proxyConnect], limit: 1000))) ?? []
        let report = IsolationReport(
            lookups: lookups.entries, unlisted: lookups.unlisted, proxyRefusals: refused.compactMap(\.detail))
        if let text = report.text() { FCMEmu.Exec.say(text) }
    }

    func finish() { try? FileManager.default.removeItem(atPath: directory) }
}
