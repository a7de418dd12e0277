// SPDX-License-Identifier: Apache-2.0

import Crypto

/// A web device's Web Push subscription (docs/receivers.md): what `pushManager.subscribe` makes in
/// a browser. The emulator keeps the private key, as the browser would, so it can decrypt what a
/// publisher sends (RFC 8291 §3). A class: only web devices carry one, behind one optional
/// reference in `Device`.
package final class WebPushSubscription: Sendable {
    /// The user agent's ECDH private key, a P-256 scalar (32 bytes).
    package let privateKey: [UInt8]
    /// `p256dh`: its public key, an uncompressed point (65 bytes, RFC 8291 §3.2).
    package let publicKey: [UInt8]
    /// `auth`: the 16-byte authentication secret (RFC 8291 §3.2).
    package let authSecret: [UInt8]
    /// The VAPID public key the subscription was made with (RFC 8292 §4), an uncompressed point;
    /// nil when none was given.
    package let applicationServerKey: [UInt8]?

    private init(privateKey: [UInt8], publicKey: [UInt8], authSecret: [UInt8], applicationServerKey: [UInt8]?) {
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.authSecret = authSecret
        self.applicationServerKey = applicationServerKey
    }

    /// A fresh subscription, its keys from the system's generator (not the world's seeded one,
    /// whose sequence the ids of a replayed world depend on).
    package static func make(applicationServerKey: [UInt8]?) throws(FCMError) -> WebPushSubscription {
        try checkApplicationServerKey(applicationServerKey)
        let key = P256.KeyAgreement.PrivateKey()
        var generator = SystemRandomNumberGenerator()
        let auth = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return WebPushSubscription(
            privateKey: Array(key.rawRepresentation), publicKey: Array(key.publicKey.x963Representation), authSecret: auth,
            applicationServerKey: applicationServerKey)
    }

    /// A subscription as a snapshot holds it, checked: the private key must be a P-256 scalar (the
    /// public key is derived from it, never read), the secret 16 bytes, the server key a point.
    package static func restore(
        privateKey: [UInt8], authSecret: [UInt8], applicationServerKey: [UInt8]?
    ) throws(FCMError) -> WebPushSubscription {
        guard privateKey.count == 32, let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey) else {
            throw FCMError(.invalidArgument, "webPush.privateKey must be a P-256 private key (32 bytes)", field: "webPush.privateKey")
        }
        guard authSecret.count == 16 else {
            throw FCMError(.invalidArgument, "webPush.auth must be 16 bytes", field: "webPush.auth")
        }
        try checkApplicationServerKey(applicationServerKey)
        return WebPushSubscription(
            privateKey: privateKey, publicKey: Array(key.publicKey.x963Representation), authSecret: authSecret,
            applicationServerKey: applicationServerKey)
    }

    /// `applicationServerKey` is "an Elliptic Curve Digital Signature Algorithm (ECDSA) public key
    /// in uncompressed form" (Push API; RFC 8292 §3.2): 65 bytes on P-256.
    private static func checkApplicationServerKey(_ key: [UInt8]?) throws(FCMError) {
        guard let key else { return }
        guard key.count == 65, key.first == 4, (try? P256.Signing.PublicKey(x963Representation: key)) != nil else {
            throw FCMError(
                .invalidArgument, "applicationServerKey must be a P-256 public key, uncompressed (65 bytes, base64url)",
                field: "applicationServerKey")
        }
    }
}

/// Where a Web Push subscription id leads (docs/receivers.md, "Answers").
package enum WebPushTarget: Sendable {
    /// No subscription has this id: 404.
    case unknown
    /// The subscription existed and is gone (the device deleted, the app uninstalled, the token
    /// replaced): 410, as RFC 8030 §7.3 asks of an expired subscription.
    case gone
    /// A live subscription of a web device in `projectId`.
    case active(WebPushSubscription, projectId: String, token: String)
    /// A real receiver's subscription (its GCM token): the push is relayed to it encrypted.
    case relay(ReceiverLink, projectId: String, token: String)
}

extension WebPushSubscription: Equatable {
    /// Two subscriptions are equal when their keys are (`DeviceInfo` compares by value).
    package static func == (a: WebPushSubscription, b: WebPushSubscription) -> Bool {
        a === b
            || (a.privateKey == b.privateKey && a.authSecret == b.authSecret && a.applicationServerKey == b.applicationServerKey)
    }
}
