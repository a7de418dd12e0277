// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import Testing

/// `HostRules.split` and `isLoopback`, read in one pass over the bytes, against the rules written
/// plainly (RFC 3986 §3.2.2's authority; RFC 6761 §6.3 and RFC 1122 §3.2.1.3's loopback names)
/// over every arrangement of the pieces an authority is made of.
@Suite struct HostRulesTests {
    static let pieces = [
        "", "[", "]", ":", ".", "..", "127", "0", "1", "255", "256", "0127", "localhost", "LocalHost", "a", "Z", "_", "-", "::1",
        "%", " ", "\u{E9}", "8080", "65535", "65536", "123456", "example.com", "[::1]", "x.localhost", "@",
    ]

    /// Every authority of up to three pieces, and a few longer ones.
    static var authorities: [String] {
        var out = pieces
        for a in pieces { for b in pieces { out.append(a + b) } }
        for a in pieces { for b in pieces { for c in ["", ":", ".", "]", "1"] { out.append(a + c + b) } } }
        out += [
            "127.0.0.1", "127.255.255.255", "127.0.0.256", "127.0.0", "127.0.0.1.", "1.2.3.4", "127.00.0.1", "127.0.0.1:80",
            "[0:0:0:0:0:0:0:1]:443", String(repeating: "a", count: 300), String(repeating: "a", count: 301),
        ]
        return out
    }

    @Test func splitFollowsTheRule() {
        for authority in Self.authorities {
            let got = HostRules.split(authority)
            let want = Self.plainSplit(authority)
            #expect(
                got?.host == want?.host && got?.port == want?.port, "\(authority): \(String(describing: got)) \(String(describing: want))")
        }
    }

    @Test func loopbackFollowsTheRule() {
        var loopback = 0
        for authority in Self.authorities {
            let host = authority.lowercased()
            #expect(HostRules.isLoopback(host) == Self.plainIsLoopback(host), "\(host)")
            if Self.plainIsLoopback(host) { loopback += 1 }
        }
        #expect(loopback > 10)
    }

    @Test func anAuthorityAndTheSameHostNameTheSameTargetWhenWellFormed() {
        #expect(HostRules.nameSameTarget("localhost:8443", "localhost:8443"))
        #expect(HostRules.nameSameTarget("LOCALHOST:443", "localhost"))
        #expect(!HostRules.nameSameTarget("a b", "a b"))
        #expect(!HostRules.nameSameTarget("localhost:1", "localhost:2"))
    }

    // MARK: the rules written plainly

    static func plainSplit(_ authority: String) -> (host: String, port: Int?)? {
        var lowered = Array(authority.utf8)
        guard !lowered.isEmpty, lowered.count <= 300 else { return nil }
        for i in lowered.indices where (0x41...0x5A).contains(lowered[i]) { lowered[i] |= 0x20 }
        var host: ArraySlice<UInt8>
        var port: ArraySlice<UInt8>?
        if lowered[0] == UInt8(ascii: "[") {
            guard let close = lowered.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = lowered[1..<close]
            let rest = lowered[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = lowered.firstIndex(of: UInt8(ascii: ":")) {
            (host, port) = (lowered[..<colon], lowered[(colon + 1)...])
        } else {
            host = lowered[...]
        }
        if host.last == UInt8(ascii: ".") { host = host.dropLast() }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-._:".utf8)
        guard !host.isEmpty, host.allSatisfy(allowed.contains) else { return nil }
        guard let port else { return (String(decoding: host, as: UTF8.self), nil) }
        guard !port.isEmpty, port.count <= 5, let value = Int(String(decoding: port, as: UTF8.self)),
            port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            value <= 65535
        else { return nil }
        return (String(decoding: host, as: UTF8.self), value)
    }

    static func plainIsLoopback(_ host: String) -> Bool {
        if ["localhost", "::1", "0:0:0:0:0:0:0:1"].contains(host) || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(part), value <= 255
            else {
                return false
            }
            octets.append(value)
        }
        return octets[0] == 127
    }
}
