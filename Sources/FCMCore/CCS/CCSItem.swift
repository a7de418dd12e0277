// SPDX-License-Identifier: Apache-2.0

/// A message CCS owes an app server (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref;
/// docs/xmpp.md): an upstream message from a device, or a
/// delivery receipt. Plain data; the XMPP front writes it as CCS's JSON.
package struct CCSItem: Sendable, Equatable {
    package enum Body: Sendable, Equatable {
        case upstream(UpstreamMessage)
        case receipt(DeliveryReceipt)
    }

    package let body: Body
    /// Dropped, unsent, at this instant (the upstream TTL; receipts live for the longest TTL).
    package let expiresAt: Instant

    package init(_ body: Body, expiresAt: Instant) {
        self.body = body
        self.expiresAt = expiresAt
    }

    /// The id the app server acks it with: the device's id, or `dr2:` and the original id.
    package var messageId: String {
        switch body {
        case .upstream(let message): return message.messageId
        case .receipt(let receipt): return receipt.messageId
        }
    }
}

/// A message a device sent to its app server.
package struct UpstreamMessage: Sendable, Equatable {
    package let messageId: String
    /// The sending instance's registration token.
    package let from: String
    /// The app's package name or bundle id.
    package let category: String
    package let data: StringPairs
    package let ttlSeconds: Int64

    package init(messageId: String, from: String, category: String, data: StringPairs, ttlSeconds: Int64) {
        self.messageId = messageId
        self.from = from
        self.category = category
        self.data = data
        self.ttlSeconds = ttlSeconds
    }

    package static func == (lhs: UpstreamMessage, rhs: UpstreamMessage) -> Bool {
        lhs.messageId == rhs.messageId && lhs.from == rhs.from && lhs.category == rhs.category && lhs.ttlSeconds == rhs.ttlSeconds
            && lhs.data.elementsEqual(rhs.data) { $0 == $1 }
    }
}

/// CCS's word that a downstream message reached its device (`message_status` MESSAGE_SENT_TO_DEVICE).
package struct DeliveryReceipt: Sendable, Equatable {
    /// The app server's own `message_id` of the downstream message.
    package let originalMessageId: String
    package let deviceToken: String
    /// The app's package name or bundle id.
    package let category: String
    package let sentAt: Instant

    package init(originalMessageId: String, deviceToken: String, category: String, sentAt: Instant) {
        self.originalMessageId = originalMessageId
        self.deviceToken = deviceToken
        self.category = category
        self.sentAt = sentAt
    }

    /// Receipts carry the original id behind `dr2:` (the XMPP reference's receipt example).
    package var messageId: String { "dr2:" + originalMessageId }
}
