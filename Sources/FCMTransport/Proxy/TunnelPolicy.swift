// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Where the proxy opens a tunnel to a host it does not stand in for. A
/// tunnel that may go anywhere made the proxy chain through itself (`CONNECT 127.0.0.1:<proxy
/// port>`, pipelined, until descriptors ran out), reach every service on the machine, and, with
/// `--host 0.0.0.0`, serve as an open proxy. So:
/// - `proxyTunnelHosts` names the hosts it may reach (`host`, `host:port`, `*.domain`);
/// - `proxyTunnel=true` lets it reach any host off this machine, and only while it listens on
///   loopback (where its clients are local programs that could reach those hosts anyway);
/// - an address on this machine (loopback, unspecified, link-local such as a cloud metadata
///   server at 169.254.169.254, or one of its interfaces) is reached only when listed exactly,
///   with its port, and never on one of fcm-emu's own ports.
public struct TunnelPolicy: Sendable, Equatable {
    /// One `proxyTunnelHosts` entry: a name or an address (lowercased), or `*.domain` for the
    /// domain's subdomains; with or without a port.
    public struct Entry: Sendable, Equatable {
        public var host: String
        public var port: Int?

        var isPattern: Bool { host.hasPrefix("*.") }
    }

    /// `proxyTunnel=true`: any host off this machine.
    public var anyHostOffThisMachine: Bool
    public var hosts: [Entry]

    public init(anyHostOffThisMachine: Bool = false, hosts: [Entry] = []) {
        self.anyHostOffThisMachine = anyHostOffThisMachine
        self.hosts = hosts
    }

    /// How a host came to be allowed: an entry naming it and its port may reach this machine.
    enum Admission: Equatable {
        case exactWithPort
        case other
    }

    func admits(host: String, port: Int) -> Admission? {
        let host = host.lowercased()
        var found: Admission?
        for entry in hosts where entry.port == nil || entry.port == port {
            if !entry.isPattern, entry.host == host {
                if entry.port != nil { return .exactWithPort }
                found = .other
            } else if entry.isPattern, host.hasSuffix(entry.host.dropFirst()) {
                found = .other
            }
        }
        return found ?? (anyHostOffThisMachine ? .other : nil)
    }

    /// Parses `proxyTunnelHosts`: comma-separated `host`, `host:port`, `[v6]:port` or `*.domain[:port]`.
    public static func parseHosts(_ text: String) throws(ParseError) -> [Entry] {
        var entries: [Entry] = []
        for item in text.split(separator: ",") {
            let item = String(item).trimmed.lowercased()
            guard !item.isEmpty else { continue }
            var host = item
            var port: Int?
            if let colon = item.lastIndex(of: ":"), item.hasPrefix("[") ? item[..<colon].hasSuffix("]") : item.filter({ $0 == ":" }).count == 1 {
                guard let number = Int(item[item.index(after: colon)...]), (1...65535).contains(number) else {
                    throw ParseError(text: "'\(item)' has no port between 1 and 65535 after its colon")
                }
                host = String(item[..<colon])
                port = number
            }
            host = HostRules.bare(host)
            let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
            guard !name.isEmpty, !name.contains("*"), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:_".contains($0)) }) else {
                throw ParseError(text: "'\(item)' is not a host, host:port or *.domain (a lone * would make an open proxy)")
            }
            entries.append(Entry(host: host, port: port))
        }
        return entries
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public var description: String { text }
    }

    /// Whether `address` is this machine: loopback, unspecified, link-local, or one of `interfaces`.
    static func isThisMachine(_ address: SocketAddress, interfaces: [SocketAddress]) -> Bool {
        guard let bytes = ipBytes(address) else { return true }
        if isLocalRange(bytes) { return true }
        return interfaces.contains { ipBytes($0) == bytes }
    }

    /// An IPv4 address as 4 bytes, an IPv6 one as 16 (an IPv4-mapped one as its 4).
    static func ipBytes(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            return mapped ? Array(bytes.suffix(4)) : bytes
        case .unixDomainSocket:
            return nil
        }
    }

    private static func isLocalRange(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            // 0.0.0.0/8 reaches this host (RFC 1122 §3.2.1.3), 127/8 is loopback, 169.254/16 link-local (RFC 3927).
            return bytes[0] == 0 || bytes[0] == 127 || (bytes[0] == 169 && bytes[1] == 254)
        }
        // :: and ::1 (RFC 4291 §2.5.2, §2.5.3), fe80::/10 link-local (§2.5.6).
        let allZeroButLast = bytes.prefix(15).allSatisfy { $0 == 0 }
        return (allZeroButLast && bytes[15] <= 1) || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80)
    }
}

extension String {
    fileprivate var trimmed: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
