// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Synchronization

/// Who holds connections to the HTTP and HTTPS ports, by address and user agent, to catch pools
/// that leak (docs/control-api.md, "Connections"): each client's connections opened and open
/// now, requests, and on HTTP/2 its streams opened and open now. HTTP/2 pool bugs of the Admin
/// SDKs (firebase-admin-node's session per sendEach, Java's pool past its limit) show as a client
/// whose open connections or streams only grow.
///
/// Live connections are one entry each (the descriptor limit bounds them); a closed one folds its
/// counts into its client's totals, at most `maxClients` clients, past which they are counted as
/// one client named `other`.
public final class ClientConnections: Sendable {
    package static let maxClients = 1_024
    /// Bytes of a user agent kept.
    static let maxUserAgentBytes = 256

    package struct Client: Sendable, Equatable {
        package var address: String
        package var userAgent: String
        package var listener: String
        package var opened = 0
        package var open = 0
        package var requests = 0
        package var streamsOpened = 0
        package var streamsOpen = 0
    }

    private struct Live {
        var address: String
        var listener: String
        var userAgent: String?
        var requests = 0
        var streamsOpened = 0
        var streamsOpen = 0
    }

    private struct Key: Hashable {
        let address: String
        let userAgent: String
        let listener: String
    }

    private struct State {
        var live: [ObjectIdentifier: Live] = [:]
        var closed: [Key: Client] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Counts `channel`, accepted by `listener`, until it closes.
    package func opened(_ channel: any Channel, listener: String) {
        let id = ObjectIdentifier(channel)
        // The host only: a client's connections differ by port.
        let address = channel.remoteAddress?.ipAddress ?? "-"
        state.withLock { $0.live[id] = Live(address: address, listener: listener) }
        channel.closeFuture.whenComplete { [self] _ in closed(id) }
    }

    /// A request on `connection` (on HTTP/2, a stream's parent), with its `User-Agent`: the first
    /// one names the connection's client.
    package func request(on connection: any Channel, userAgent: String?, stream: Bool) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            guard var live = s.live[id] else { return }
            if live.userAgent == nil, let userAgent { live.userAgent = String(userAgent.utf8.prefix(Self.maxUserAgentBytes)) ?? "" }
            live.requests += 1
            if stream {
                live.streamsOpened += 1
                live.streamsOpen += 1
            }
            s.live[id] = live
        }
    }

    /// An HTTP/2 stream of `connection` ended.
    package func streamClosed(on connection: any Channel) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            if let open = s.live[id]?.streamsOpen, open > 0 { s.live[id]?.streamsOpen = open - 1 }
        }
    }

    private func closed(_ id: ObjectIdentifier) {
        state.withLock { s in
            guard let live = s.live.removeValue(forKey: id) else { return }
            var key = Key(address: live.address, userAgent: live.userAgent ?? "", listener: live.listener)
            if s.closed[key] == nil, s.closed.count >= Self.maxClients { key = Key(address: "other", userAgent: "", listener: live.listener) }
            var client = s.closed[key] ?? Client(address: key.address, userAgent: key.userAgent, listener: key.listener)
            client.opened += 1
            client.requests += live.requests
            client.streamsOpened += live.streamsOpened
            s.closed[key] = client
        }
    }

    /// Every client, those holding the most open connections first.
    package func clients() -> [Client] {
        var byKey = state.withLock { $0.closed }
        for live in state.withLock({ Array($0.live.values) }) {
            let key = Key(address: live.address, userAgent: live.userAgent ?? "", listener: live.listener)
            var client = byKey[key] ?? Client(address: key.address, userAgent: key.userAgent, listener: key.listener)
            client.opened += 1
            client.open += 1
            client.requests += live.requests
            client.streamsOpened += live.streamsOpened
            client.streamsOpen += live.streamsOpen
            byKey[key] = client
        }
        return byKey.values.sorted {
            ($0.open, $0.opened, $1.address, $1.userAgent) > ($1.open, $1.opened, $0.address, $0.userAgent)
        }
    }
}
