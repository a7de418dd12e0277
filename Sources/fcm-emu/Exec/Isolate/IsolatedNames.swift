// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMMCS
import FCMTransport
import FCMXMPP
import Synchronization

/// The names that resolve under `exec --isolate` (docs/unmodified-apps.md, "Fail closed: exec
/// --isolate"): Google's, which the emulator stands in for on their own ports, and this machine's
/// own. Every other name is one the command cannot reach there; the lookups of those are kept,
/// bounded, for the report when the command ends.
struct IsolatedNames: Sendable {
    /// Google's names the emulator answers for: HTTPS on 443, CCS, MCS.
    static let google = FrontHosts.https + XMPPServer.hosts + [MCSServer.host]

    /// Lowercased names that resolve to 127.0.0.1.
    let loopback: Set<String>

    /// Google's names, `localhost` and the machine's own `hostname` (which many runtimes look up at
    /// start: it is this machine, and loopback is all of it there is here).
    init(hostname: String?) {
        var names = Set(Self.google + ["localhost"])
        if let hostname, !hostname.isEmpty { names.insert(hostname.lowercased()) }
        loopback = names
    }

    /// The answer to `question`, and whether it is a lookup the report names: one of a name that
    /// does not resolve here, other than a reverse lookup (`in-addr.arpa`, `ip6.arpa`, which
    /// runtimes make of addresses they already hold).
    func answer(_ question: DNSQuestion) -> (DNSQuestion.Answer, report: Bool) {
        guard question.klass == DNSQuestion.classIN else { return (.refused, false) }
        let name = question.name
        if loopback.contains(name) || name.hasSuffix(".localhost") { return (.loopback, false) }
        return (.noSuchName, !(name.hasSuffix(".in-addr.arpa") || name.hasSuffix(".ip6.arpa")))
    }

    /// The `/etc/hosts` the command sees: every loopback name on 127.0.0.1, `localhost` on ::1 too.
    func hostsFile() -> String {
        let names = loopback.subtracting(["localhost"]).sorted()
        var lines = [
            "# Written by fcm-emu exec --isolate for its private mount namespace (docs/unmodified-apps.md).",
            "127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback",
        ]
        // Several names a line, as hosts(5) allows, and short lines for any reader with a line limit.
        var line: [String] = []
        for name in names {
            line.append(name)
            if line.count == 4 {
                lines.append("127.0.0.1 " + line.joined(separator: " "))
                line = []
            }
        }
        if !line.isEmpty { lines.append("127.0.0.1 " + line.joined(separator: " ")) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `/etc/resolv.conf` the command sees: this process's resolver, nothing else, and no search
    /// domains, so a name is asked as given (resolv.conf(5)).
    static let resolvConf = """
        # Written by fcm-emu exec --isolate for its private mount namespace (docs/unmodified-apps.md).
        nameserver 127.0.0.1
        options attempts:1 timeout:1

        """
}

/// The names the command looked up that do not resolve under `--isolate`, with how often, in the
/// order first asked: at most `limit` names (the rest only counted), each cleaned to printable ASCII.
final class LookupLog: Sendable {
    static let limit = 256

    struct Entry: Equatable, Sendable {
        let name: String
        var count: Int
    }

    private struct State {
        var entries: [Entry] = []
        var index: [String: Int] = [:]
        var unlisted = 0
    }

    private let state = Mutex(State())

    /// Counts a lookup of `name`; true when it is the first of that name (then worth an event).
    @discardableResult
    func record(_ name: String) -> Bool {
        let name = Self.printable(name)
        return state.withLock { state in
            if let at = state.index[name] {
                state.entries[at].count += 1
                return false
            }
            guard state.entries.count < Self.limit else {
                state.unlisted += 1
                return false
            }
            state.index[name] = state.entries.count
            state.entries.append(Entry(name: name, count: 1))
            return true
        }
    }

    var entries: [Entry] { state.withLock { $0.entries } }
    /// Lookups of names past the limit.
    var unlisted: Int { state.withLock { $0.unlisted } }

    /// At most 253 characters (a name's longest text form), each outside `!`…`~` made `?`, so what
    /// the report prints cannot move a terminal's cursor.
    static func printable(_ name: String) -> String {
        String(decoding: name.utf8.prefix(253).map { (0x21...0x7e).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
