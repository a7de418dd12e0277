// SPDX-License-Identifier: Apache-2.0

/// What ties a device to a real receiving client (docs/receivers.md, "Real receivers"): the
/// check-in it connects as, the GCM registration its Web Push endpoint names, and the keys it
/// decrypts with. The emulator never holds the receiver's private key: it encrypts to `p256dh`
/// and `auth` as FCM does (draft-ietf-webpush-encryption-04), and relays what a Web Push
/// publisher encrypted. A class: only real receivers carry one, behind one optional in `Device`.
package final class ReceiverLink: Sendable {
    /// The check-in's Android id, which the MCS login names (`LoginRequest.user`).
    package let androidId: UInt64
    /// The GCM registration token (`/c2dm/register3`): the id in the endpoint
    /// `https://fcm.googleapis.com/fcm/send/<gcmToken>`.
    package let gcmToken: String
    /// register3's `app` (Chrome: `org.chromium.linux`): a data message's `category`.
    package let category: String
    /// register3's `X-subtype` (`wp:<scope>#<id>`): a data message's `subtype` app data.
    package let subtype: String
    /// register3's `sender` (Firebase's default VAPID key for web clients): a data message's `from`.
    package let sender: String
    /// The subscription's keys as the client registered them: a P-256 point (65 bytes) and the
    /// 16-byte auth secret (RFC 8291 §3.2).
    package let p256dh: [UInt8]
    package let auth: [UInt8]
    /// The VAPID key the subscription was bound to, if any (RFC 8292 §4).
    package let applicationServerKey: [UInt8]?

    package init(
        androidId: UInt64, gcmToken: String, category: String, subtype: String, sender: String, p256dh: [UInt8], auth: [UInt8],
        applicationServerKey: [UInt8]?
    ) {
        self.androidId = androidId
        self.gcmToken = gcmToken
        self.category = category
        self.subtype = subtype
        self.sender = sender
        self.p256dh = p256dh
        self.auth = auth
        self.applicationServerKey = applicationServerKey
    }
}

extension ReceiverLink: Equatable {
    /// Two links are equal when they name the same registration with the same keys (`DeviceInfo` compares by value).
    package static func == (a: ReceiverLink, b: ReceiverLink) -> Bool {
        a === b || (a.androidId == b.androidId && a.gcmToken == b.gcmToken && a.p256dh == b.p256dh && a.auth == b.auth)
    }
}
