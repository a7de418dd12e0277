// SPDX-License-Identifier: Apache-2.0

/// Which `Host` and `Origin` values name this emulator (docs/security.md, "Host" and "Origin").
///
/// A DNS-rebinding page reaches the emulator under the attacker's own name: the browser sends
/// that name as `Host` (RFC 9110 §7.2), and a server that answers any `Host` hands its answers
/// to that page as same-origin reads. So the control API and the dashboard answer only names
/// that cannot be rebound from outside the machine (the loopback names of RFC 6761 §6.3 and
/// the loopback addresses of RFC 1122 §3.2.1.3 and RFC 4291 §2.5.3) and the names the user gave.
/// The FCM fronts also answer Google's names, which the DNS route and the proxy bring here.
package struct HostRules: Sendable {
    /// The longest `Host` or `Origin` read: a DNS name is at most 253 bytes (RFC 1035 §2.3.4).
    static let maxLength = 300
    /// `--host`, lower-cased without brackets; nil when it is a wildcard (0.0.0.0, ::).
    let listenHost: String?
    /// `allowedHosts`: names (any port) or `name:port` authorities, lower-cased.
    let allowed: Set<String>
    /// `*` in `allowedHosts`: every name is taken (a choice the user makes, warned at start).
    let anyHost: Bool
    /// The names of the hosts the emulator stands in for (Google's), lower-cased: the `standIn`
    /// plane answers under them too.
    let standInNames: Set<String>

    init(listenHost: String, allowedHosts: [String], standInNames: Set<String> = []) {
        let listen = Self.split(listenHost.hasPrefix("[") ? listenHost : (listenHost.contains(":") ? "[\(listenHost)]" : listenHost))
        let wildcard = ["", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"]
        self.listenHost = listen.flatMap { wildcard.contains($0.host) ? nil : $0.host }
        var allowed = Set<String>()
        for entry in allowedHosts {
            let trimmed = entry.trimmingSpaces.lowercased()
            guard !trimmed.isEmpty else { continue }
            allowed.insert(trimmed.hasSuffix(".") ? String(trimmed.dropLast()) : trimmed)
        }
        anyHost = allowed.contains("*")
        self.allowed = allowed
        self.standInNames = Set(standInNames.map { $0.lowercased() })
    }

    /// A `Host` value as (host, port): lower-cased, brackets and a trailing dot removed; nil when
    /// it is not a well-formed authority (RFC 3986 §3.2.2). Read byte by byte in one pass over
    /// the contiguous bytes: an authority is ASCII (RFC 9110 §4.2.3), and every request passes
    /// here (an array of its bytes and slices of it were a tenth of an HTTP/2 send's own work).
    static func split(_ authority: String) -> (host: String, port: Int?)? {
        var authority = authority
        return authority.withUTF8 { bytes -> (host: String, port: Int?)? in
            guard !bytes.isEmpty, bytes.count <= maxLength else { return nil }
            var start = 0
            var end = bytes.count
            var portStart: Int?
            if bytes[0] == UInt8(ascii: "[") {
                guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                (start, end) = (1, close)
                if close + 1 < bytes.count {
                    guard bytes[close + 1] == UInt8(ascii: ":") else { return nil }
                    portStart = close + 2
                }
            } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                (end, portStart) = (colon, colon + 1)
            }
            if end > start, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            guard end > start else { return nil }
            for b in bytes[start..<end] where !isHostByte(lowered(b)) { return nil }
            var port: Int?
            if let portStart {
                let digits = bytes[portStart...]
                guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(isDigit) else { return nil }
                let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                guard value <= 65535 else { return nil }
                port = value
            }
            let host = String(unsafeUninitializedCapacity: end - start) { out in
                for i in start..<end { out[i - start] = lowered(bytes[i]) }
                return end - start
            }
            return (host, port)
        }
    }

    private static func lowered(_ b: UInt8) -> UInt8 { b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b }

    /// What a lower-cased host may hold: letters, digits, `-`, `.`, `_`, and `:` (an IPv6 literal).
    private static func isHostByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x3A
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// A host without the brackets an IPv6 literal wears in a URL or an authority (`[::1]` →
    /// `::1`, RFC 3986 §3.2.2); any other host as it is.
    package static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// localhost, *.localhost (RFC 6761 §6.3), 127.0.0.0/8 and ::1. In one pass over the bytes:
    /// splitting into octets and mapping them was most of admitting a request.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        var host = host
        return host.withUTF8 { bytes in
            let suffix = ".localhost".utf8
            if bytes.count >= suffix.count, bytes[(bytes.count - suffix.count)...].elementsEqual(suffix) { return true }
            // A dotted quad (four octets of one to three digits, each at most 255) in 127.0.0.0/8.
            var (dots, value, digits, first) = (0, 0, 0, -1)
            for b in bytes {
                if b == UInt8(ascii: ".") {
                    guard digits > 0, value <= 255 else { return false }
                    if dots == 0 { first = value }
                    (dots, value, digits) = (dots + 1, 0, 0)
                } else if isDigit(b), digits < 3 {
                    (value, digits) = (value * 10 + Int(b - UInt8(ascii: "0")), digits + 1)
                } else {
                    return false
                }
            }
            return dots == 3 && digits > 0 && value <= 255 && first == 127
        }
    }

    /// Whether `host[:port]` may reach the control API and the dashboard.
    func allowsControl(host: String, port: Int?) -> Bool {
        if anyHost || Self.isLoopback(host) || host == listenHost || allowed.contains(host) { return true }
        guard let port else { return false }
        return allowed.contains("\(host.contains(":") ? "[\(host)]" : host):\(port)")
    }

    /// Whether `host[:port]` may reach the `standIn` plane: the above, and the stood-in names.
    func allowsStandIn(host: String, port: Int?) -> Bool {
        allowsControl(host: host, port: port) || standInNames.contains(host)
    }

    /// Whether HTTP/2's `:authority` and a `Host` beside it name the same target, compared as
    /// RFC 9113 §8.3.1 asks (scheme-based normalisation, RFC 3986 §6.2.3): the name without case
    /// or a trailing dot, and the port with https's default, 443, folded (HTTP/2 is served over
    /// TLS only). Either one malformed is no match.
    static func nameSameTarget(_ authority: String, _ host: String) -> Bool {
        // NIO's HTTP/2 codec writes a `host` of the `:authority` when the client sent none.
        if authority == host { return split(authority) != nil }
        guard let a = split(authority), let b = split(host) else { return false }
        return a.host == b.host && (a.port ?? 443) == (b.port ?? 443)
    }

    /// `Origin` (RFC 6454 §7) is this emulator's own: `http` or `https`, an allowed host, and the
    /// very authority the request was sent to (`Host`), default ports folded. `null` (a file://
    /// page, a sandboxed frame) is no origin of ours.
    func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, origin.utf8.count <= Self.maxLength else { return false }
        let lower = origin.lowercased()
        let scheme: String
        let defaultPort: Int
        if lower.hasPrefix("http://") {
            (scheme, defaultPort) = ("http://", 80)
        } else if lower.hasPrefix("https://") {
            (scheme, defaultPort) = ("https://", 443)
        } else {
            return false
        }
        let authority = String(lower.dropFirst(scheme.count))
        guard !authority.contains("/"), let fromOrigin = Self.split(authority), let fromHost = Self.split(host) else { return false }
        guard allowsControl(host: fromOrigin.host, port: fromOrigin.port) else { return false }
        return fromOrigin.host == fromHost.host && (fromOrigin.port ?? defaultPort) == (fromHost.port ?? defaultPort)
    }
}
