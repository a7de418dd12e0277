// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decrypts a Web Push message body as the receiving browser would (docs/receivers.md): `aes128gcm`
/// (RFC 8188's content coding with RFC 8291's keys) and the older `aesgcm`
/// (draft-ietf-webpush-encryption-04 over draft-ietf-httpbis-encryption-encoding-03).
package enum WebPushDecryption {
    /// Why a body did not decrypt; each answers 400 with its text.
    package struct Failure: Error, Sendable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// RFC 8291 §4 and RFC 8188 §2.1: `salt(16) | rs(4) | idlen(1) | keyid`, the key id being the
    /// application server's ECDH public key; then records of `rs` bytes, each ending with its
    /// padding delimiter (2 for the last record, 1 before it) and zeros.
    package static func aes128gcm(_ body: [UInt8], subscription: WebPushSubscription) throws(Failure) -> [UInt8] {
        guard body.count >= 21 else { throw Failure("The aes128gcm header is shorter than 21 bytes (RFC 8188 §2.1)") }
        let salt = Array(body[0..<16])
        let rs = Int(body[16]) << 24 | Int(body[17]) << 16 | Int(body[18]) << 8 | Int(body[19])
        let idLength = Int(body[20])
        guard rs >= 18 else { throw Failure("The record size is below 18 (RFC 8188 §2.1)") }
        guard idLength == 65, body.count >= 21 + idLength else {
            throw Failure("The key id must be the application server's public key, 65 bytes (RFC 8291 §4)")
        }
        let senderKey = Array(body[21..<(21 + idLength)])
        let secret = try sharedSecret(subscription, senderKey)
        // RFC 8291 §3.4: key_info = "WebPush: info" || 0x00 || ua_public || as_public.
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscription.publicKey + senderKey
        let ikm = hkdf(ikm: secret, salt: subscription.authSecret, info: keyInfo, count: 32)
        // RFC 8188 §2.2 and §2.3.
        let cek = hkdf(ikm: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], count: 16)
        let nonce = hkdf(ikm: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], count: 12)
        let records = Array(body[(21 + idLength)...])
        guard !records.isEmpty else { throw Failure("The body has no record") }
        var plaintext: [UInt8] = []
        var start = 0
        var sequence: UInt64 = 0
        while start < records.count {
            let end = min(start + rs, records.count)
            let last = end == records.count
            let opened = try open(Array(records[start..<end]), key: cek, nonce: nonce, sequence: sequence)
            // The delimiter is the last non-zero byte: 2 ends the last record, 1 any other (§2).
            guard let delimiter = opened.lastIndex(where: { $0 != 0 }), opened[delimiter] == (last ? 2 : 1) else {
                throw Failure("A record's padding delimiter is missing or wrong (RFC 8188 §2)")
            }
            plaintext += opened[..<delimiter]
            start = end
            sequence += 1
        }
        return plaintext
    }

    /// draft-ietf-webpush-encryption-04 §3 and draft-ietf-httpbis-encryption-encoding-03: the
    /// sender's key from `Crypto-Key: dh=`, the salt from `Encryption: salt=`; each record of `rs`
    /// (default 4096) plaintext bytes starts with a two-byte padding length and that many zeros.
    package static func aesgcm(
        _ body: [UInt8], subscription: WebPushSubscription, senderKey: [UInt8], salt: [UInt8], recordSize: Int
    ) throws(Failure) -> [UInt8] {
        guard salt.count == 16 else { throw Failure("Encryption: salt must be 16 bytes") }
        guard recordSize >= 3 else { throw Failure("Encryption: rs must be at least 3") }
        let secret = try sharedSecret(subscription, senderKey)
        let ikm = hkdf(ikm: secret, salt: subscription.authSecret, info: Array("Content-Encoding: auth".utf8) + [0], count: 32)
        func length(_ key: [UInt8]) -> [UInt8] { [UInt8(key.count >> 8), UInt8(key.count & 0xff)] }
        let context = Array("P-256".utf8) + [0] + length(subscription.publicKey) + subscription.publicKey + length(senderKey) + senderKey
        let cek = hkdf(ikm: ikm, salt: salt, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, count: 16)
        let nonce = hkdf(ikm: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0] + context, count: 12)
        guard !body.isEmpty else { throw Failure("The body has no record") }
        var plaintext: [UInt8] = []
        var start = 0
        var sequence: UInt64 = 0
        while start < body.count {
            let end = min(start + recordSize + 16, body.count)
            let opened = try open(Array(body[start..<end]), key: cek, nonce: nonce, sequence: sequence)
            guard opened.count >= 2 else { throw Failure("A record is shorter than its padding length") }
            let padding = Int(opened[0]) << 8 | Int(opened[1])
            guard opened.count >= 2 + padding, opened[2..<(2 + padding)].allSatisfy({ $0 == 0 }) else {
                throw Failure("A record's padding is wrong")
            }
            plaintext += opened[(2 + padding)...]
            start = end
            sequence += 1
        }
        return plaintext
    }

    private static func sharedSecret(_ subscription: WebPushSubscription, _ senderKey: [UInt8]) throws(Failure) -> [UInt8] {
        guard let mine = try? P256.KeyAgreement.PrivateKey(rawRepresentation: subscription.privateKey),
            let theirs = try? P256.KeyAgreement.PublicKey(x963Representation: senderKey)
        else { throw Failure("The application server's public key is not a P-256 point") }
        guard let secret = try? mine.sharedSecretFromKeyAgreement(with: theirs) else {
            throw Failure("The key agreement failed")
        }
        return secret.withUnsafeBytes { Array($0) }
    }

    private static func hkdf(ikm: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
        return key.withUnsafeBytes { Array($0) }
    }

    /// One record: the nonce is the base nonce XOR the record's sequence number (RFC 8188 §2.3).
    private static func open(_ record: [UInt8], key: [UInt8], nonce: [UInt8], sequence: UInt64) throws(Failure) -> [UInt8] {
        guard record.count > 16 else { throw Failure("A record is shorter than its tag") }
        var iv = nonce
        for i in 0..<8 { iv[11 - i] ^= UInt8(truncatingIfNeeded: sequence >> UInt64(8 * i)) }
        guard let gcmNonce = try? AES.GCM.Nonce(data: iv),
            let box = try? AES.GCM.SealedBox(nonce: gcmNonce, ciphertext: record.dropLast(16), tag: record.suffix(16)),
            let opened = try? AES.GCM.open(box, using: SymmetricKey(data: key))
        else { throw Failure("The message did not decrypt with the subscription's keys") }
        return Array(opened)
    }
}
