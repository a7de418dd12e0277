// SPDX-License-Identifier: Apache-2.0

/// A message CCS owes an app server (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref;
/// docs/xmpp.md): an upstream message from a device, or a
/// delivery receipt. Plain data; the XMPP front writes it as CCS's JSON.
public struct CCSItem: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case upstream(UpstreamMessage)
        case receipt(DeliveryReceipt)
    }

    public let body: Body
    /// Dropped, unsent, at this instant (the upstream TTL; receipts live for the longest TTL).
    public let expiresAt: Instant

    public init(_ body: Body, expiresAt: Instant) {
        self.body = body
        self.expiresAt = expiresAt
    }

    /// The id the app server acks it with: the device's id, or `dr2:` and the original id.
    public var messageId: String {
        switch body {
        case .upstream(let message): return message.messageId
        case .receipt(let receipt): return receipt.messageId
        }
    }
}

/// A message a device sent to its app server.
public struct UpstreamMessage: Sendable, Equatable {
    public let messageId: String
    /// The sending instance's registration token.
    public let from: String
    /// The app's package name or bundle id.
    public let category: String
    public let data: StringPairs
    public let ttlSeconds: Int64

    public init(messageId: String, from: String, category: String, data: StringPairs, ttlSeconds: Int64) {
        self.messageId = messageId
        self.from = from
        self.category = category
        self.data = data
        self.ttlSeconds = ttlSeconds
    }

    public static func == (lhs: UpstreamMessage, rhs: UpstreamMessage) -> Bool {
        lhs.messageId == rhs.messageId && lhs.from == rhs.from && lhs.category == rhs.category && lhs.ttlSeconds == rhs.ttlSeconds
            && lhs.data.elementsEqual(rhs.data) { $0 == $1 }
    }
}

/// CCS's word that a downstream message reached its device (`message_status` MESSAGE_SENT_TO_DEVICE).
public struct DeliveryReceipt: Sendable, Equatable {
    /// The app server's own `message_id` of the downstream message.
    public let originalMessageId: String
    public let deviceToken: String
    /// The app's package name or bundle id.
    public let category: String
    public let sentAt: Instant

    public init(originalMessageId: String, deviceToken: String, category: String, sentAt: Instant) {
        self.originalMessageId = originalMessageId
        self.deviceToken = deviceToken
        self.category = category
        self.sentAt = sentAt
    }

    /// Receipts carry the original id behind `dr2:` (the XMPP reference's receipt example).
    public var messageId: String { "dr2:" + originalMessageId }
}
