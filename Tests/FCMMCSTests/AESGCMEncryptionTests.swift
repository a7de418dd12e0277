// SPDX-License-Identifier: Apache-2.0

import Crypto
@testable import FCMMCS
import Testing

/// `aesgcm` as the receiver decrypts it (draft-ietf-webpush-encryption-04; the record layout
/// http_ece 1.1.0 reads, which firebase-messaging uses).
@Suite("aesgcm encryption to a receiver's keys")
struct AESGCMEncryptionTests {
    /// The receiver's side, written from the draft: derive the same key and nonce, open each
    /// 4112-byte record, strip its padding.
    static func decrypt(_ result: AESGCMEncryption.Result, receiver: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        let p256dh = Array(receiver.publicKey.x963Representation)
        let shared = try receiver.sharedSecretFromKeyAgreement(with: .init(x963Representation: result.senderPublicKey))
        let ecdh = shared.withUnsafeBytes { Array($0) }
        let prk = AESGCMEncryption.hkdf(ecdh, salt: auth, info: Array("Content-Encoding: auth".utf8) + [0], count: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + p256dh + [0, 65] + result.senderPublicKey
        let key = AESGCMEncryption.hkdf(prk, salt: result.salt, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, count: 16)
        let nonce = AESGCMEncryption.hkdf(prk, salt: result.salt, info: Array("Content-Encoding: nonce".utf8) + [0] + context, count: 12)
        var plaintext: [UInt8] = []
        var counter: UInt64 = 0
        var start = 0
        while start < result.ciphertext.count {
            let end = min(start + 4112, result.ciphertext.count)
            let record = Array(result.ciphertext[start..<end])
            let box = try AES.GCM.SealedBox(
                nonce: .init(data: AESGCMEncryption.recordNonce(nonce, counter)), ciphertext: record.dropLast(16), tag: record.suffix(16))
            let opened = Array(try AES.GCM.open(box, using: SymmetricKey(data: key)))
            let pad = Int(opened[0]) << 8 | Int(opened[1])
            plaintext += opened[(2 + pad)...]
            counter += 1
            start = end
        }
        return plaintext
    }

    @Test(arguments: [0, 1, 4093, 4094, 4095, 9000])
    func itRoundTripsAndIsNeverAWholeNumberOfRecords(size: Int) throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = (0..<16).map { UInt8($0) }
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let result = try AESGCMEncryption.encrypt(plaintext, p256dh: Array(receiver.publicKey.x963Representation), auth: auth)
        #expect(result.salt.count == 16 && result.senderPublicKey.count == 65)
        // http_ece refuses a ciphertext that is a whole number of 4112-byte records ("Message truncated").
        #expect(result.ciphertext.count % 4112 != 0)
        #expect(try Self.decrypt(result, receiver: receiver, auth: auth) == plaintext)
    }

    @Test func badKeysAreRefused() {
        let notAPoint = [4] + [UInt8](repeating: 1, count: 64)
        #expect(throws: AESGCMEncryption.Failure.badReceiverKey) {
            try AESGCMEncryption.encrypt([1], p256dh: notAPoint, auth: [UInt8](repeating: 0, count: 16))
        }
        let key = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        #expect(throws: AESGCMEncryption.Failure.badAuthSecret) { try AESGCMEncryption.encrypt([1], p256dh: key, auth: [1, 2]) }
    }
}
