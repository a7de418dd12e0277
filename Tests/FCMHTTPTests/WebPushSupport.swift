// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import Foundation

/// A publisher's side of Web Push, for the tests: RFC 8291 encryption and an RFC 8292 VAPID header.
enum WebPushPublisher {
    static func hkdf(_ ikm: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
            .withUnsafeBytes { Array($0) }
    }

    /// One aes128gcm record (RFC 8291 §4), rs 4096, the key id the sender's public key.
    static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], sender: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    ) throws -> [UInt8] {
        let senderPublic = Array(sender.publicKey.x963Representation)
        let secret = try sender.sharedSecretFromKeyAgreement(with: .init(x963Representation: p256dh)).withUnsafeBytes { Array($0) }
        let ikm = hkdf(secret, salt: auth, info: Array("WebPush: info".utf8) + [0] + p256dh + senderPublic, count: 32)
        let cek = hkdf(ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], count: 16)
        let nonce = hkdf(ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], count: 12)
        let box = try AES.GCM.seal(plaintext + [2], using: SymmetricKey(data: cek), nonce: AES.GCM.Nonce(data: nonce))
        return salt + [0, 0, 0x10, 0, 65] + senderPublic + Array(box.ciphertext) + Array(box.tag)
    }

    /// `vapid t=<ES256 JWT>, k=<key>` (RFC 8292 §3).
    static func vapid(
        _ key: P256.Signing.PrivateKey, aud: String = "https://fcm.googleapis.com", exp: Int64 = Int64(Date().timeIntervalSince1970) + 3600
    ) throws -> String {
        let header = Base64URLCodec.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = Base64URLCodec.encode(Array(#"{"aud":"\#(aud)","exp":\#(exp),"sub":"mailto:test@example.com"}"#.utf8))
        let signed = header + "." + claims
        let signature = try key.signature(for: Data(signed.utf8)).rawRepresentation
        return "vapid t=\(signed).\(Base64URLCodec.encode(Array(signature))), k=\(Base64URLCodec.encode(Array(key.publicKey.x963Representation)))"
    }
}
