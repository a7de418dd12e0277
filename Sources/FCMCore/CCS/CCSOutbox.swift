// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// What CCS owes each sender's XMPP connections: items wait until a connection takes them, stay
/// in flight until that connection acks them, and go back to waiting when it closes without acking
/// ("sent again on the next connection unless expired"). At most `maxInFlight` un-acked items per
/// connection. Both from https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref; docs/xmpp.md.
struct CCSOutbox: Sendable {
    static let maxInFlight = 100
    /// What waits for a project's connections is bounded too: past it the oldest item is dropped
    /// (a `ccsDropped` event), as a backlog no app server takes cannot grow forever.
    static let maxWaiting = 10_000

    private(set) var waiting: [String: Deque<CCSItem>] = [:]
    /// Connection → (project, items it holds).
    private(set) var inFlight: [Int: (project: String, items: [CCSItem])] = [:]
    private(set) var nextConnection = 1
    /// What the control API and the dashboard show of each bound connection.
    private var described: [Int: CCSConnectionInfo] = [:]
    /// Per project: how many drains were asked for, so each connection drains once per request.
    private(set) var drainRequests: [String: Int] = [:]

    init() {}

    /// An outbox restored from a snapshot: what waits per project, no connection yet.
    init(waiting: [String: Deque<CCSItem>], nextConnection: Int, drainRequests: [String: Int]) {
        self.waiting = waiting
        self.nextConnection = nextConnection
        self.drainRequests = drainRequests
    }

    /// Queues an item; returns the oldest one when the queue was full and it had to go.
    mutating func enqueue(_ item: CCSItem, project: String) -> CCSItem? {
        waiting[project, default: []].append(item)
        guard let count = waiting[project]?.count, count > Self.maxWaiting else { return nil }
        return waiting[project]?.popFirst()
    }

    mutating func connect(project: String, sender: String, at now: Instant) -> Int {
        defer { nextConnection += 1 }
        inFlight[nextConnection] = (project, [])
        described[nextConnection] = CCSConnectionInfo(id: nextConnection, projectId: project, sender: sender, connectedAt: now)
        return nextConnection
    }

    /// The connection sent CONNECTION_DRAINING.
    mutating func markDraining(_ connection: Int) { described[connection]?.draining = true }

    /// The project's bound connections, oldest first, with what each holds un-acked.
    func connections(project: String) -> [CCSConnectionInfo] {
        described.values.filter { $0.projectId == project }.sorted { $0.id < $1.id }.map { info in
            var info = info
            info.inFlight = inFlight[info.id]?.items.count ?? 0
            return info
        }
    }

    /// Puts what the connection held back in line, first.
    mutating func disconnect(_ connection: Int) {
        described[connection] = nil
        guard let held = inFlight.removeValue(forKey: connection), !held.items.isEmpty else { return }
        waiting[held.project, default: []].prepend(contentsOf: held.items)
    }

    /// Items for the connection to send now, from the front of the line; the expired ones met on
    /// the way are dropped and returned apart. Only what is taken is looked at, so a long line
    /// costs nothing per pump (expired items further back go when they reach the front).
    mutating func take(_ connection: Int, now: Instant) -> (send: [CCSItem], expired: [CCSItem]) {
        guard var held = inFlight[connection], var queue = waiting.removeValue(forKey: held.project) else { return ([], []) }
        var send: [CCSItem] = []
        var expired: [CCSItem] = []
        while held.items.count + send.count < Self.maxInFlight, let item = queue.popFirst() {
            if item.expiresAt <= now { expired.append(item) } else { send.append(item) }
        }
        if !queue.isEmpty { waiting[held.project] = queue }
        held.items += send
        inFlight[connection] = held
        return (send, expired)
    }

    /// The app server acked `messageId` (receipts may be acked as `dr2:<id>` or `<id>`: client libraries differ).
    mutating func ack(_ connection: Int, messageId: String) -> CCSItem? {
        guard var held = inFlight[connection] else { return nil }
        guard let index = held.items.firstIndex(where: { $0.messageId == messageId || $0.messageId == "dr2:" + messageId }) else {
            return nil
        }
        let item = held.items.remove(at: index)
        inFlight[connection] = held
        return item
    }

    mutating func requestDrain(project: String) {
        drainRequests[project, default: 0] += 1
    }

    func project(of connection: Int) -> String? { inFlight[connection]?.project }
}

/// One bound XMPP connection, as the control API lists it.
package struct CCSConnectionInfo: Sendable, Equatable {
    package let id: Int
    package let projectId: String
    /// The sender id (project number) it logged in as.
    package let sender: String
    package let connectedAt: Instant
    /// CONNECTION_DRAINING was sent: new downstream messages are refused, and the server closes soon.
    package var draining = false
    /// Upstream messages and receipts sent on it and not yet acked (at most 100).
    package var inFlight = 0
}
