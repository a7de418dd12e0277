// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// The client side of FCM as real receivers reach it (docs/receivers.md, "Real receivers"):
/// check-ins, GCM registrations, Firebase installations, and what each receiver's MCS connection
/// owes it. Every collection a client can grow has a limit here, refused in the API's dialect.
struct ReceiverRegistry: Sendable {
    /// Check-ins kept; past it a check-in is refused (docs/receivers.md, "Limits").
    static let maxCheckins = 100_000
    /// GCM registrations one check-in may hold (Chromium's `TOO_MANY_REGISTRATIONS`).
    static let maxRegistrationsPerCheckin = 100
    /// Installations kept across projects.
    static let maxInstallations = 100_000
    /// Messages sent on a connection and not yet acknowledged, per receiver. A receiver that
    /// lets this many pile up is disconnected: what follows is stored by FCM's rules (the
    /// 100-message cap and its deleted-messages signal), never queued without end.
    static let maxUnacked = 256
    /// How long an installation's auth token lives: FIS answers `"expiresIn": "604800s"`.
    static let authTokenSeconds: Int64 = 604_800

    struct Checkin: Sendable {
        let securityToken: UInt64
        /// GCM tokens registered under this check-in, in registration order.
        var registrations: [String] = []
        /// The logged-in MCS connection, by the number `login` gave it; nil while none is.
        var connection: UInt64?
        /// Deliveries owed to the receiver, in order: sent ones until acknowledged, and ones not yet sent.
        var outbox: Deque<OutboxEntry> = []

        init(securityToken: UInt64, registrations: [String] = []) {
            self.securityToken = securityToken
            self.registrations = registrations
        }
    }

    struct Registration: Sendable {
        let androidId: UInt64
        let app: String
        let subtype: String
        let sender: String
        /// The device an FCM registration made for this endpoint, once one did.
        var device: DeviceID?
    }

    struct Installation: Sendable {
        let projectIndex: Int32
        let fid: String
        let appId: String
        let refreshToken: String
        var authToken: String
        var authExpiresAt: Instant
        /// Devices registered through this installation (FCM registrations).
        var devices: [DeviceID] = []
    }

    var checkins: [UInt64: Checkin] = [:]
    /// By GCM token.
    var registrations: [String: Registration] = [:]
    /// By project index and FID.
    var installations: [InstallationKey: Installation] = [:]
    var installationByAuthToken: [String: InstallationKey] = [:]
    var nextConnection: UInt64 = 1
    var nextPersistentId: UInt64 = 1

    struct InstallationKey: Hashable, Sendable {
        let projectIndex: Int32
        let fid: String
    }
}

/// One delivery owed to a real receiver over MCS.
package struct OutboxEntry: Sendable {
    /// The id the receiver acknowledges (`DataMessageStanza.persistent_id`).
    package let persistentId: String
    package let device: DeviceID
    package let delivery: Delivery
    /// Dropped, not sent, after this instant (the message's TTL).
    package let expiresAt: Instant?
    /// Written on the current connection.
    package var sent = false
}

/// What a real receiver's MCS connection is sent: the delivery and the device's link.
package struct ReceiverDelivery: Sendable {
    package let persistentId: String
    package let delivery: Delivery
    package let link: ReceiverLink
}
