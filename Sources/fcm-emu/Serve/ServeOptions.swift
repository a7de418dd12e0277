// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMServer
import FCMSnapshot
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging

/// Everything `serve` was told, resolved from defaults < config file < environment < flags.
struct ServeOptions: Sendable {
    var server = ServerConfiguration()
    var fronts = FrontConfiguration(authMode: .strict, stateDirectory: ServeOptions.defaultStateDirectory)
    var settings = EmulatorSettings()
    var clockStart: Instant?
    var clockSpeed = 1.0
    var clockPaused = false
    var readyFile: String?
    var logLevel = Logger.Level.info
    /// `text` for people, `json` for log collectors (one object per line).
    var logFormat = LogFormat.text

    enum LogFormat: String, CaseIterable, Sendable {
        case text, json
    }
    /// YAML files of projects and devices to create at start-up.
    var preloadFiles: [String] = []
    /// YAML or JSON files of fault rules to apply from the start.
    var faultFiles: [String] = []
    /// XMPP (CCS) ports: production and testing, as FCM's 5235 and 5236; nil turns one off.
    var xmppPort: Int? = 5235
    var xmppTestPort: Int? = 5236
    /// Drain each XMPP connection this long after it binds; nil never.
    var xmppDrainAfterSeconds: Int64?
    var xmppPrefixedForm = true
    /// The HTTPS proxy's port; nil (the default in `serve`) turns it off.
    var proxyPort: Int?
    var proxyTunnel = false
    var proxyTunnelHosts: [TunnelPolicy.Entry] = []
    /// MCS, the connection real receivers hold open (docs/receivers.md), on FCM's port 5228; nil turns it off.
    var mcsPort: Int? = 5228
    var xmppLoginTimeoutSeconds: Int64 = 30
    var xmppIdleTimeoutSeconds: Int64 = 600
    /// A snapshot directory to start from (`--import`).
    var importDirectory: String?
    /// Where the world is written when the emulator stops, SIGTERM included (`--export-on-exit`).
    var exportOnExit: String?
    /// Write a snapshot this often (to `exportOnExit`, else `<state dir>/snapshots/autosave`); nil never.
    var autosaveSeconds: Int64?
    /// What snapshots written by `serve` include besides the world.
    var snapshotInclude: Set<SnapshotManifest.Part> = []

    static var defaultStateDirectory: String {
        (ProcessInfo.processInfo.environment["HOME"] ?? ".") + "/.fcm-emu"
    }
}

/// A setting that a flag (`--set key=value`), an environment variable (`FCM_EMU_KEY`) or the
/// config file can give. One table, so the three stay in step and `--help` lists them all.
struct Setting: Sendable {
    let key: String
    let example: String
    let help: String
    let apply: @Sendable (inout ServeOptions, String) throws(ConfigError) -> Void

    /// `dozeMaintenanceInterval` → `FCM_EMU_DOZE_MAINTENANCE_INTERVAL`.
    var environmentName: String {
        var out = "FCM_EMU_"
        for ch in key {
            if ch.isUppercase { out += "_" }
            out += ch.uppercased()
        }
        return out
    }
}

/// A setting that could not be applied, with where it came from.
struct ConfigError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

enum Settings {
    static let server: [Setting] = [
        Setting(key: "host", example: "127.0.0.1", help: "Address to listen on; 0.0.0.0 exposes the emulator to the network") {
            o, v throws(ConfigError) in
            o.server.host = v
        },
        Setting(
            key: "allowedHosts", example: "fcm-emu,emu.test",
            help: "Host names (or name:port) the control API and dashboard answer besides localhost, 127.0.0.0/8, ::1 and --host; "
                + "others get 403 (DNS rebinding, docs/security.md). * answers any"
        ) { o, v throws(ConfigError) in
            let names = v.split(separator: ",").map { String($0).trimming() }.filter { !$0.isEmpty }
            guard names.count <= 100, names.allSatisfy({ $0.utf8.count <= 260 }) else {
                throw ConfigError("expected at most 100 names of at most 260 bytes each")
            }
            o.server.allowedHosts = names
        },
        Setting(
            key: "controlToken", example: "auto",
            help: "Bearer token the control API asks for (Authorization: Bearer …, all but GET /health); auto: 128 random bits "
                + "when --host is not loopback, none on loopback; off: none (warned)"
        ) { o, v throws(ConfigError) in
            switch v {
            case "auto", "": o.server.controlToken = .automatic
            case "off": o.server.controlToken = .off
            default:
                guard v.utf8.count >= 16, v.utf8.count <= 512, v.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw ConfigError("expected auto, off, or a token of 16–512 printable ASCII characters without spaces")
                }
                o.server.controlToken = .value(v)
            }
        },
        Setting(key: "port", example: "9092", help: "HTTP port for every API and the control API; 0 picks a free one") {
            o, v throws(ConfigError) in
            o.server.httpPort = try port(v)
        },
        Setting(
            key: "tlsPort", example: "9093",
            help: "TLS port (HTTP/2 and HTTP/1.1 by ALPN, certificate from the local CA); 0 picks a free one, off disables it"
        ) { o, v throws(ConfigError) in
            o.server.tlsPort = v == "off" ? nil : try port(v)
        },
        Setting(
            key: "xmppPort", example: "5235",
            help: "XMPP connection server port (TLS from the first byte); 0 picks a free one, off disables it"
        ) { o, v throws(ConfigError) in
            o.xmppPort = v == "off" ? nil : try port(v)
        },
        Setting(key: "xmppTestPort", example: "5236", help: "Second XMPP port, as FCM's testing endpoint; off disables it") {
            o, v throws(ConfigError) in
            o.xmppTestPort = v == "off" ? nil : try port(v)
        },
        Setting(
            key: "mcsPort", example: "5228",
            help: "MCS port, where real receivers (firebase-messaging, Chrome's GCM client) connect as to mtalk.google.com; 0 picks a free one, off disables it"
        ) { o, v throws(ConfigError) in
            o.mcsPort = v == "off" ? nil : try port(v)
        },
        Setting(
            key: "xmppDrainAfter", example: "off",
            help: "Send CONNECTION_DRAINING to each XMPP connection this long after it binds, then close it; off by default"
        ) { o, v throws(ConfigError) in
            if v == "off" { o.xmppDrainAfterSeconds = nil } else { o.xmppDrainAfterSeconds = try duration(v) / 1000 }
        },
        Setting(
            key: "proxyPort", example: "off",
            help: "HTTPS proxy port: with HTTPS_PROXY pointing here, SDKs reach the emulator unmodified; 0 picks a free one, off by default"
        ) { o, v throws(ConfigError) in
            o.proxyPort = v == "off" ? nil : try port(v)
        },
        Setting(
            key: "proxyTunnel", example: "false",
            help: "The proxy tunnels any host off this machine it does not stand in for, instead of refusing it (on loopback only)"
        ) {
            o, v throws(ConfigError) in
            o.proxyTunnel = try bool(v)
        },
        Setting(
            key: "proxyTunnelHosts", example: "api.example.com,*.internal.example:8443",
            help: "Hosts the proxy tunnels untouched (host, host:port or *.domain); one on this machine needs its port, fcm-emu's own never"
        ) { o, v throws(ConfigError) in
            do throws(TunnelPolicy.ParseError) {
                o.proxyTunnelHosts = try TunnelPolicy.parseHosts(v)
            } catch {
                throw ConfigError(error.description)
            }
        },
        Setting(
            key: "xmppLoginTimeout", example: "30s", help: "An XMPP connection not logged in and bound this long after it opens is closed"
        ) {
            o, v throws(ConfigError) in
            o.xmppLoginTimeoutSeconds = max(1, try duration(v) / 1000)
        },
        Setting(
            key: "xmppIdleTimeout", example: "10m",
            help: "An XMPP connection that sends nothing for this long (whitespace keepalives count) is closed; off never"
        ) { o, v throws(ConfigError) in
            o.xmppIdleTimeoutSeconds = v == "off" ? 0 : max(1, try duration(v) / 1000)
        },
        Setting(
            key: "xmppPrefixedForm", example: "true",
            help: "Nacks and control messages as <data:gcm xmlns:data=…>, as the reference shows; false puts every payload in <gcm>"
        ) { o, v throws(ConfigError) in
            o.xmppPrefixedForm = try bool(v)
        },
        Setting(key: "logLevel", example: "info", help: "trace, debug, info, notice, warning, error or critical") {
            o, v throws(ConfigError) in
            guard let level = Logger.Level(rawValue: v.lowercased()) else {
                throw ConfigError("expected trace, debug, info, notice, warning, error or critical, got '\(v)'")
            }
            o.logLevel = level
        },
        Setting(key: "logFormat", example: "text", help: "text for people, json for log collectors (one object per line)") {
            o, v throws(ConfigError) in
            guard let format = ServeOptions.LogFormat(rawValue: v.lowercased()) else {
                throw ConfigError("expected text or json, got '\(v)'")
            }
            o.logFormat = format
        },
        Setting(key: "readyFile", example: "/tmp/fcm-emu.json", help: "Write addresses and demo credentials here as JSON once listening") {
            o, v throws(ConfigError) in
            o.readyFile = v
        },
        Setting(key: "devices", example: "devices.yaml", help: "Create the projects and devices listed in this YAML file at start-up") {
            o, v throws(ConfigError) in
            o.preloadFiles.append(v)
        },
        Setting(
            key: "auth", example: "strict",
            help: "strict checks bearer tokens and server keys as FCM does; lax accepts any (demo-* projects always are)"
        ) { o, v throws(ConfigError) in
            guard let mode = AuthMode(rawValue: v) else { throw ConfigError("expected strict or lax, got '\(v)'") }
            o.fronts.authMode = mode
        },
        Setting(
            key: "metadataProject", example: "demo-fcm-emu",
            help: "The project whose access tokens the GCE metadata server (/computeMetadata/v1) hands out"
        ) { o, v throws(ConfigError) in
            o.fronts.metadataProject = v
        },
        Setting(
            key: "stateDir", example: "~/.fcm-emu",
            help: "Where service-account keys and the access-token key are kept between runs; 'none': in memory"
        ) { o, v throws(ConfigError) in
            o.fronts.stateDirectory = v == "none" ? nil : v
        },
        Setting(
            key: "faults", example: "faults.yaml",
            help: "Apply the fault rules in this YAML or JSON file ({faults: [{id, match, action}]}) from the start"
        ) { o, v throws(ConfigError) in
            o.faultFiles.append(v)
        },
        Setting(key: "maxBodyBytes", example: "8388608", help: "Larger request bodies are refused with 413") { o, v throws(ConfigError) in
            guard let n = Int(v), n >= 1024 else { throw ConfigError("expected a byte count of at least 1024, got '\(v)'") }
            o.server.maxBodyBytes = n
        },
        Setting(
            key: "httpIdleTimeout", example: "2m",
            help: "An HTTP connection that sends nothing for this long is closed (TLS handshakes included)"
        ) {
            o, v throws(ConfigError) in
            o.server.idleTimeoutSeconds = max(1, try duration(v) / 1000)
        },
        Setting(key: "import", example: "snapshots/nightly", help: "Start from this snapshot directory (--import)") {
            o, v throws(ConfigError) in
            o.importDirectory = v
        },
        Setting(
            key: "exportOnExit", example: "snapshots/last",
            help: "Write the world to this directory when the emulator stops, on SIGTERM and SIGINT too (--export-on-exit)"
        ) { o, v throws(ConfigError) in
            o.exportOnExit = v
        },
        Setting(
            key: "autosave", example: "off",
            help: "Write a snapshot this often (to exportOnExit, else <stateDir>/snapshots/autosave), atomically; off by default"
        ) { o, v throws(ConfigError) in
            o.autosaveSeconds = v == "off" ? nil : max(1, try duration(v) / 1000)
        },
        Setting(
            key: "snapshotClock", example: "snapshot",
            help: "On import, resume timers at the snapshot's time (snapshot) or let the time since pass (wall)"
        ) { o, v throws(ConfigError) in
            guard let clock = SnapshotClock(rawValue: v) else { throw ConfigError("expected snapshot or wall, got '\(v)'") }
            o.fronts.snapshots.clock = clock
        },
        Setting(key: "snapshotInclude", example: "events,inboxes", help: "What snapshots written by serve include besides the world") {
            o, v throws(ConfigError) in
            var parts: Set<SnapshotManifest.Part> = []
            for name in v.split(separator: ",") where !name.isEmpty && name != "none" {
                guard let part = SnapshotManifest.Part(rawValue: String(name)) else {
                    throw ConfigError("expected events, inboxes or none, got '\(name)'")
                }
                parts.insert(part)
            }
            o.snapshotInclude = parts
        },
        Setting(key: "clockStart", example: "2026-01-01T00:00:00Z", help: "Start the clock here instead of at the current time") {
            o, v throws(ConfigError) in
            guard let instant = Instant(iso8601: v) else { throw ConfigError("expected an RFC 3339 time, got '\(v)'") }
            o.clockStart = instant
        },
        Setting(key: "clockSpeed", example: "1", help: "Clock speed relative to real time (60 = a minute per second)") {
            o, v throws(ConfigError) in
            guard let speed = Double(v), speed >= 0.001, speed <= 1_000_000 else {
                throw ConfigError("expected a number from 0.001 to 1000000, got '\(v)'")
            }
            o.clockSpeed = speed
        },
        Setting(key: "clockPaused", example: "false", help: "Start with the clock paused; move it with POST /emulator/v1/clock:advance") {
            o, v throws(ConfigError) in
            o.clockPaused = try bool(v)
        },
    ]

    /// The server's own settings, then the simulated world's (shared with scenarios).
    static let all: [Setting] =
        server
        + EmulatorSettings.keys.map { key in
            Setting(key: key.name, example: key.example, help: key.help) { o, v throws(ConfigError) in
                do throws(FCMError) {
                    try o.settings.set(key.name, v)
                } catch {
                    throw ConfigError(error.message)
                }
            }
        }

    static func named(_ key: String) -> Setting? { all.first { $0.key == key } }

    /// `"; did you mean 'port'?"` for a mistyped key, or nothing.
    static func hint(for key: String) -> String { NearestName.hint(for: key, among: all.map(\.key)) }

    /// The table as `--help` prints it.
    static var helpText: String {
        all.map { "  \($0.key) (\($0.environmentName), e.g. \($0.example))\n      \($0.help)" }.joined(separator: "\n")
    }

    private static func port(_ v: String) throws(ConfigError) -> Int {
        guard let p = Int(v), (0...65535).contains(p) else { throw ConfigError("expected a port number 0–65535, got '\(v)'") }
        return p
    }

    private static func bool(_ v: String) throws(ConfigError) -> Bool {
        switch v.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ConfigError("expected true or false, got '\(v)'")
        }
    }

    private static func duration(_ v: String) throws(ConfigError) -> Int64 {
        guard let ms = DurationText.millis(v) else {
            throw ConfigError("expected a duration such as 500ms, 90s, 15m, 2h or 28d, got '\(v)'")
        }
        return ms
    }

}

extension ServeOptions {
    /// Each listener that is on moves to a free port, and the fixed XMPP test port goes: `exec`
    /// and `mcp` start emulators of their own beside others, which must never clash.
    mutating func useFreePorts() {
        server.tlsPort = server.tlsPort == nil ? nil : 0
        xmppPort = xmppPort == nil ? nil : 0
        xmppTestPort = nil
        mcsPort = mcsPort == nil ? nil : 0
        proxyPort = proxyPort == nil ? nil : 0
    }
}
