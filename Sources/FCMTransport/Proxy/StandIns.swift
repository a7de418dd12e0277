// SPDX-License-Identifier: Apache-2.0

/// The hosts the emulator stands in for and the local port that serves each, as the layers above
/// name them (FCMServer's `GoogleHosts`): the proxy joins a CONNECT to one of them to that port
/// instead of the host, and answers a plain-HTTP request to one itself, on any port.
public struct StandIns: Sendable {
    /// Lower-cased host → its port → the local port that stands in for it.
    private var ports: [String: [Int: Int]] = [:]
    /// Names whose plain-HTTP requests (absolute form) the emulator answers itself: none of
    /// them ever leaves through the proxy.
    public private(set) var plainHTTPNames: Set<String> = []

    public init() {}

    /// `hosts` on `port` are served by `local`; nothing when the listener is off (nil).
    public mutating func serve(_ hosts: [String], port: Int, by local: Int?) {
        guard let local else { return }
        for host in hosts { ports[host.lowercased(), default: [:]][port] = local }
    }

    /// A plain-HTTP request to one of `hosts` is answered by the emulator, never forwarded.
    public mutating func answerPlainHTTP(_ hosts: [String]) {
        plainHTTPNames.formUnion(hosts.map { $0.lowercased() })
    }

    /// The local port that stands in for `host:port`, or nil when the emulator does not.
    public func port(for host: String, _ port: Int) -> Int? {
        ports[host.lowercased()]?[port]
    }

    public func answersPlainHTTP(_ host: String) -> Bool {
        plainHTTPNames.contains(host.lowercased())
    }

    /// The hosts stood in for on `port`, sorted, for messages that name them.
    public func hosts(on port: Int) -> [String] {
        ports.filter { $0.value[port] != nil }.keys.sorted()
    }
}
