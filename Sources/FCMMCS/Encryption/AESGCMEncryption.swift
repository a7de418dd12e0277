// SPDX-License-Identifier: Apache-2.0

import Crypto

/// Encrypts a payload to a web receiver's keys with the `aesgcm` content encoding, as FCM does for
/// GCM-protocol receivers (draft-ietf-webpush-encryption-04 §3 with
/// draft-ietf-httpbis-encryption-encoding-03; Chromium gcm_message_cryptographer.cc,
/// `WebPushEncryptionDraft03`). Records are laid out as the `http_ece` library's `encrypt` lays
/// them out (4094 plaintext bytes each, two zero padding-length bytes first, one more record when
/// the data fills its last one exactly), since firebase-messaging decrypts with it and refuses a
/// ciphertext whose length is a whole number of 4112-byte records.
package enum AESGCMEncryption {
    package struct Result: Sendable {
        package let salt: [UInt8]
        /// The sender's ephemeral public key, uncompressed (65 bytes): `Crypto-Key: dh=`.
        package let senderPublicKey: [UInt8]
        package let ciphertext: [UInt8]
    }

    package enum Failure: Error, Equatable {
        case badReceiverKey
        case badAuthSecret
    }

    /// The record size both sides assume when `rs` is not given: 4096 (draft-03 §3.1), of which
    /// two bytes are the padding length.
    static let recordSize = 4096

    package static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], sender: P256.KeyAgreement.PrivateKey = .init(), salt: [UInt8]? = nil
    ) throws(Failure) -> Result {
        guard p256dh.count == 65, let receiver = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh) else { throw .badReceiverKey }
        guard auth.count == 16 else { throw .badAuthSecret }
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let senderPublic = Array(sender.publicKey.x963Representation)
        guard let shared = try? sender.sharedSecretFromKeyAgreement(with: receiver) else { throw .badReceiverKey }
        let ecdh = shared.withUnsafeBytes { Array($0) }
        let prk = hkdf(ecdh, salt: auth, info: Array("Content-Encoding: auth".utf8) + [0], count: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + p256dh + [0, 65] + senderPublic
        let key = SymmetricKey(data: hkdf(prk, salt: salt, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, count: 16))
        let nonce = hkdf(prk, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0] + context, count: 12)
        let chunk = recordSize - 2
        var ciphertext: [UInt8] = []
        ciphertext.reserveCapacity(plaintext.count + (plaintext.count / chunk + 1) * 18)
        var counter: UInt64 = 0
        // Every start from 0 to the length itself, as http_ece's `range(0, len(data) + 1, rs - 2)`.
        for start in stride(from: 0, through: plaintext.count, by: chunk) {
            let record = [0, 0] + plaintext[start..<min(start + chunk, plaintext.count)]
            let iv = recordNonce(nonce, counter)
            guard let nonce = try? AES.GCM.Nonce(data: iv), let box = try? AES.GCM.seal(record, using: key, nonce: nonce) else {
                throw .badReceiverKey
            }
            ciphertext += box.ciphertext
            ciphertext += box.tag
            counter += 1
        }
        return Result(salt: salt, senderPublicKey: senderPublic, ciphertext: ciphertext)
    }

    /// The base nonce with the record's sequence number XORed into its last eight bytes
    /// (draft-ietf-httpbis-encryption-encoding-03 §3.3).
    static func recordNonce(_ base: [UInt8], _ counter: UInt64) -> [UInt8] {
        var iv = base
        for i in 0..<8 { iv[4 + i] ^= UInt8(truncatingIfNeeded: counter >> UInt64(8 * (7 - i))) }
        return iv
    }

    static func hkdf(_ ikm: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
            .withUnsafeBytes { Array($0) }
    }
}
