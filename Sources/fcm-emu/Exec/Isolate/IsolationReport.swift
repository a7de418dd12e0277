// SPDX-License-Identifier: Apache-2.0

/// What `exec --isolate` says on stderr when the command ends, if the command tried to reach a
/// host that is not there: each name it looked up that does not resolve (the resolver's log) and
/// each host the proxy refused it (its `proxyConnect` events), how often, and what would have
/// reached it (docs/unmodified-apps.md, "Fail closed: exec --isolate").
struct IsolationReport {
    /// The most hosts named; the rest are counted in one line.
    static let maxLines = 20

    let lookups: [LookupLog.Entry]
    /// Lookups of names past `LookupLog.limit`.
    let unlisted: Int
    /// The details of the emulator's `proxyConnect` events, oldest first.
    let proxyRefusals: [String]

    /// `host:port` from a proxy event that refused (`refused example.com:443 (not resolved)`,
    /// `plain HTTP refused example.com:80`); nil for any other (intercepted, tunnelled, a lookup).
    static func refusedTarget(_ detail: String) -> String? {
        var rest = Substring(detail)
        if rest.hasPrefix("plain HTTP ") { rest = rest.dropFirst("plain HTTP ".count) }
        guard rest.hasPrefix("refused ") else { return nil }
        let target = rest.dropFirst("refused ".count).prefix { $0 != " " }
        return target.isEmpty ? nil : LookupLog.printable(String(target))
    }

    /// The report, or nil when the command tried nothing it could not reach.
    func text() -> String? {
        var counted: [(String, Int)] = []
        var index: [String: Int] = [:]
        for target in proxyRefusals.compactMap(Self.refusedTarget) {
            if let at = index[target] {
                counted[at].1 += 1
            } else {
                index[target] = counted.count
                counted.append((target, 1))
            }
        }
        let lines =
            lookups.map { ("looked up \($0.name) (\($0.count)×)", Self.host($0.name)) }
            + counted.map { ("asked the proxy (HTTPS_PROXY) for \($0.0) (\($0.1)×)", Self.host($0.0)) }
        guard !lines.isEmpty || unlisted > 0 else { return nil }
        var out = lines.prefix(Self.maxLines).map { said, host in
            "fcm-emu exec --isolate: the command \(said): under --isolate only the emulator is reachable; " + Self.advice(host)
        }
        let hidden = max(0, lines.count - Self.maxLines)
        if hidden > 0 || unlisted > 0 {
            let past = unlisted > 0 ? ", and \(unlisted) lookups of names past the first \(LookupLog.limit)" : ""
            out.append("fcm-emu exec --isolate: and \(hidden) more hosts\(past), unreachable alike")
        }
        out.append(
            "fcm-emu exec --isolate: Google's names that fcm-emu stands in for reached the emulator here: through HTTPS_PROXY, and by "
                + "the DNS route (/etc/hosts names them 127.0.0.1, where the emulator serves TLS on 443); the events say "
                + "the same (proxyConnect, \"isolated: lookup … refused\")")
        return out.joined(separator: "\n")
    }

    /// The host of `host:port` or a bare name, lowercased, brackets of an IPv6 address dropped.
    static func host(_ target: String) -> String {
        var host = Substring(target.lowercased())
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<end]
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = host[..<colon]
        }
        return String(host)
    }

    /// What would have reached `host`.
    static func advice(_ host: String) -> String {
        if IsolatedNames.google.contains(host) {
            return "\(host) is the emulator's here on its own port (443 for HTTPS, 5235 for CCS, 5228 for MCS), not on the one asked for"
        }
        if host.hasSuffix(".googleapis.com") || host.hasSuffix(".google.com") || host == "googleapis.com" {
            return "fcm-emu does not stand in for \(host): without --isolate, HTTPS_PROXY tunnels it to the real Google "
                + "(docs/unmodified-apps.md, \"The HTTPS proxy\")"
        }
        return "run without --isolate to reach \(host) (HTTPS_PROXY tunnels it; NO_PROXY=\(host) sends it direct), "
            + "or serve it on 127.0.0.1 inside the command"
    }
}
