// SPDX-License-Identifier: Apache-2.0

/// Delivery to real receivers over MCS (docs/receivers.md, "Delivery over MCS"). A logged-in
/// connection is its devices' "online": the world's rules decide what is delivered, stored,
/// collapsed or expired, exactly as for simulated devices; a delivery is then owed to the
/// receiver until it acknowledges its persistent id (a selective ack, or the id listed in its
/// next login), and what was sent and not acknowledged is sent again after the next login.
extension World {
    /// Owes a delivery that was just kept in a real receiver's inbox to its connection.
    mutating func oweToReceiver(_ delivery: Delivery, device id: DeviceID, link: ReceiverLink) {
        guard var checkin = receivers.checkins[link.androidId] else { return }
        let expiresAt = delivery.kind == .message ? delivery.time.adding(seconds: delivery.ttlSeconds) : nil
        checkin.outbox.append(OutboxEntry(persistentId: nextPersistentId(), device: id, delivery: delivery, expiresAt: expiresAt))
        let full = checkin.outbox.count >= ReceiverRegistry.maxUnacked && checkin.connection != nil
        if full { checkin.connection = nil }
        receivers.checkins[link.androidId] = checkin
        receiverWork.insert(link.androidId)
        // A receiver that acknowledges nothing: closed, and its devices offline, so what follows
        // is stored by FCM's rules (bounded by the 100-message cap) rather than owed without end.
        if full { takeReceiverOffline(link.androidId) }
    }

    /// `0:<epoch ms>%<16 hex>`, the shape of the persistent ids FCM's MCS sends.
    private mutating func nextPersistentId() -> String {
        let n = receivers.nextPersistentId
        receivers.nextPersistentId &+= 1
        let hex = String(n, radix: 16)
        return "0:\(max(0, now.millis))%" + String(repeating: "0", count: max(0, 16 - hex.utf8.count)) + hex
    }

    /// A login on a new MCS connection: checks the check-in's credentials, takes the ids the
    /// client lists as received for acknowledged, drops what expired while it was away, and
    /// brings its devices online (which hands over what was stored for them). Returns the
    /// connection's number; a connection logged in before it for the same check-in is superseded.
    mutating func receiverLogin(androidId: UInt64, securityToken: UInt64, received: [String]) throws(ReceiverRefusal) -> UInt64 {
        guard checkinMatches(androidId: androidId, securityToken: securityToken) else {
            throw .unauthenticated("The login's id and token name no check-in of this emulator")
        }
        acknowledge(androidId: androidId, ids: received)
        guard var checkin = receivers.checkins[androidId] else { throw .unauthenticated("No such check-in") }
        let connection = receivers.nextConnection
        receivers.nextConnection &+= 1
        checkin.connection = connection
        var kept = checkin.outbox
        kept.removeAll()
        for var entry in checkin.outbox {
            if let expiresAt = entry.expiresAt, expiresAt < now {
                // The message's TTL passed before the receiver came back to acknowledge it.
                if let message = entry.delivery.message { log(.expired, device: entry.device, message: message, detail: "unacknowledged") }
                continue
            }
            entry.sent = false
            kept.append(entry)
        }
        checkin.outbox = kept
        receivers.checkins[androidId] = checkin
        receiverWork.insert(androidId)
        for device in receiverDevices(androidId: androidId) where devices[Int(device)]?.state.isConnected == false {
            try? setState(device, to: .foreground)
        }
        return connection
    }

    /// What a logged-in connection is to write now: the owed deliveries it has not written yet,
    /// in order; nil when the connection is no longer the check-in's (superseded, disconnected
    /// for acknowledging nothing, or the world was replaced): it must close.
    mutating func receiverOutgoing(androidId: UInt64, connection: UInt64) -> [ReceiverDelivery]? {
        guard var checkin = receivers.checkins[androidId], checkin.connection == connection else { return nil }
        var out: [ReceiverDelivery] = []
        var gone = false
        for index in checkin.outbox.indices where !checkin.outbox[index].sent {
            let entry = checkin.outbox[index]
            guard let link = devices[Int(entry.device)]?.receiver else {
                gone = true
                continue
            }
            checkin.outbox[index].sent = true
            out.append(ReceiverDelivery(persistentId: entry.persistentId, delivery: entry.delivery, link: link))
        }
        if gone { checkin.outbox.removeAll { devices[Int($0.device)]?.receiver == nil } }
        receivers.checkins[androidId] = checkin
        return out
    }

    /// The receiver has these persistent ids: they are never sent again.
    mutating func acknowledge(androidId: UInt64, ids: [String]) {
        guard !ids.isEmpty, var checkin = receivers.checkins[androidId] else { return }
        let acked = Set(ids)
        checkin.outbox.removeAll { acked.contains($0.persistentId) }
        receivers.checkins[androidId] = checkin
    }

    /// The connection closed: its devices are offline, unless a newer connection took over.
    mutating func receiverDisconnected(androidId: UInt64, connection: UInt64) {
        guard receivers.checkins[androidId]?.connection == connection else { return }
        receivers.checkins[androidId]?.connection = nil
        takeReceiverOffline(androidId)
    }

    private mutating func takeReceiverOffline(_ androidId: UInt64) {
        for device in receiverDevices(androidId: androidId) where devices[Int(device)]?.state.isConnected == true {
            try? setState(device, to: .offline)
        }
    }
}
