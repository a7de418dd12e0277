// SPDX-License-Identifier: Apache-2.0

/// What CCS owes each sender's XMPP connections: items wait until a connection takes them, stay
/// in flight until that connection acks them, and go back to waiting when it closes without acking
/// ("sent again on the next connection unless expired", FCM-WIRE.md §5.3). At most
/// `maxInFlight` un-acked items per connection (§5.4).
struct CCSOutbox: Sendable {
    static let maxInFlight = 100

    private var waiting: [String: [CCSItem]] = [:]
    /// Connection → (project, items it holds).
    private var inFlight: [Int: (project: String, items: [CCSItem])] = [:]
    private var nextConnection = 1
    /// Per project: how many drains were asked for, so each connection drains once per request.
    private(set) var drainRequests: [String: Int] = [:]

    mutating func enqueue(_ item: CCSItem, project: String) {
        waiting[project, default: []].append(item)
    }

    mutating func connect(project: String) -> Int {
        defer { nextConnection += 1 }
        inFlight[nextConnection] = (project, [])
        return nextConnection
    }

    /// Puts what the connection held back in line, first.
    mutating func disconnect(_ connection: Int) {
        guard let held = inFlight.removeValue(forKey: connection), !held.items.isEmpty else { return }
        waiting[held.project, default: []].insert(contentsOf: held.items, at: 0)
    }

    /// Items for the connection to send now; expired ones are dropped and returned apart.
    mutating func take(_ connection: Int, now: Instant) -> (send: [CCSItem], expired: [CCSItem]) {
        guard var held = inFlight[connection] else { return ([], []) }
        var queue = waiting[held.project] ?? []
        let expired = queue.filter { $0.expiresAt <= now }
        queue.removeAll { $0.expiresAt <= now }
        let room = max(0, Self.maxInFlight - held.items.count)
        let send = Array(queue.prefix(room))
        queue.removeFirst(send.count)
        waiting[held.project] = queue
        held.items += send
        inFlight[connection] = held
        return (send, expired)
    }

    /// The app server acked `messageId` (receipts may be acked as `dr2:<id>` or `<id>`, §5.3).
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
