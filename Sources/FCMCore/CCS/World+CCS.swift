// SPDX-License-Identifier: Apache-2.0

extension World {
    /// A device sends an upstream message to its app server (the XMPP reference's upstream messages,
    /// https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref; docs/xmpp.md).
    mutating func sendUpstream(_ id: DeviceID, data: StringPairs, messageId: String?, ttlSeconds: Int64) throws(FCMError) -> CCSItem {
        let device = try device(id)
        guard device.tokenValid, device.state != .uninstalled else {
            throw FCMError(.conflict, "An uninstalled app sends nothing", field: "device")
        }
        guard (0...EmulatorSettings.maxTTLSeconds).contains(ttlSeconds) else {
            throw FCMError(.invalidArgument, "ttl must be 0…2419200 seconds", field: "ttl")
        }
        let project = try projectState(device.projectIndex).project
        let upstreamId = messageId ?? "m-\(ids.random.next() % 1_000_000_000_000)"
        let message = UpstreamMessage(messageId: upstreamId, from: token(of: device), category: device.appId, data: data, ttlSeconds: ttlSeconds)
        let item = CCSItem(.upstream(message), expiresAt: now.adding(seconds: max(ttlSeconds, 1)))
        if let dropped = ccs.enqueue(item, project: project.id) { log(.ccsDropped, detail: dropped.messageId) }
        ccsWork.insert(project.id)
        log(.upstream, device: device.id, detail: upstreamId)
        return item
    }

    /// A delivered XMPP message that asked for it gets a delivery receipt, except on iOS
    /// (the XMPP reference's `delivery_receipt_requested` is not supported for messages to iOS devices;
    /// docs/xmpp.md).
    mutating func queueReceipt(for message: Message, device: Device) {
        guard message.api == .xmpp, message.content.deliveryReceiptRequested, device.platform != .ios,
            let original = message.content.clientMessageId
        else { return }
        let receipt = DeliveryReceipt(originalMessageId: original, deviceToken: token(of: device), category: device.appId, sentAt: now)
        let item = CCSItem(.receipt(receipt), expiresAt: now.adding(seconds: EmulatorSettings.maxTTLSeconds))
        if let dropped = ccs.enqueue(item, project: message.projectId) { log(.ccsDropped, detail: dropped.messageId) }
        ccsWork.insert(message.projectId)
        log(.receiptQueued, device: device.id, message: message, detail: item.messageId)
    }

    mutating func ccsTake(_ connection: Int) -> [CCSItem] {
        let (send, expired) = ccs.take(connection, now: now)
        for item in expired { log(.ccsExpired, detail: item.messageId) }
        return send
    }

    mutating func ccsAck(_ connection: Int, messageId: String) -> Bool {
        guard let item = ccs.ack(connection, messageId: messageId) else { return false }
        log(.ccsAcked, detail: item.messageId)
        return true
    }
}
