// SPDX-License-Identifier: Apache-2.0

/// Something that happened in the simulated world, at a time on the emulator's clock.
/// The delivery log, the control API and scenario expectations all read these.
public struct Event: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case projectCreated, projectDeleted
        case deviceCreated, deviceDeleted
        case stateChanged
        case tokenRefreshed, tokenInvalidated
        case subscribed, unsubscribed
        case groupCreated, groupChanged, groupDeleted
        /// FCM accepted the message (once per send, not per recipient).
        case accepted
        /// Stored for a device that cannot take it now.
        case stored
        /// A stored message was replaced by a newer one with the same collapse key.
        case collapsed
        /// A stored message was evicted to keep to the collapse-key limit.
        case evicted
        /// A stored message reached the end of its TTL.
        case expired
        case delivered
        /// Dropped without delivery; `detail` says why.
        case discarded
        case deletedMessagesSignalled
        case clockAdvanced
        /// A fault rule fired; `detail` names it and what it did.
        case faultInjected
        /// A device sent an upstream message to its app server (XMPP).
        case upstream
        /// A delivery receipt was queued for the app server (XMPP).
        case receiptQueued
        /// The app server acked an upstream message or receipt.
        case ccsAcked
        /// An upstream message or receipt expired before the app server took it.
        case ccsExpired
        /// An upstream message or receipt was dropped unsent: its project's line was full.
        case ccsDropped
        /// A client asked the proxy for a host: `detail` says which, and whether the emulator
        /// answered for it, tunnelled it to the real host, or refused it.
        case proxyConnect
    }

    public let sequence: Int
    public let time: Instant
    public let kind: Kind
    public let device: DeviceID?
    public let message: Message?
    /// A second message the event concerns (the newer one in `collapsed`).
    public let related: Message?
    /// A short machine-readable reason or value (`ttl-zero`, `offline→foreground`, a topic…).
    public let detail: String?
}
