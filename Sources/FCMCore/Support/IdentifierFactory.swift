// SPDX-License-Identifier: Apache-2.0

/// Makes identifiers in the formats the real service uses, from the emulator's seeded generator.
struct IdentifierFactory: Sendable {
    private static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    var random: SeededRandom
    /// Kept in snapshots, so message ids made after an import are the ones the original would make.
    var microCounter: UInt64 = 0

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func base64URL(count: Int) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count { bytes.append(Self.base64URL[Int(random.next() & 63)]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A Firebase Installation id: 22 base64url characters whose first four bits are 0111,
    /// so the first character is one of `c d e f`.
    mutating func fid() -> String {
        let first = ["c", "d", "e", "f"][Int(random.next() & 3)]
        return first + base64URL(count: 21)
    }

    /// A registration token as current SDKs issue them: `<fid>:APA91b<134 base64url>` (163 chars).
    mutating func registrationToken(fid: String) -> String {
        fid + ":APA91b" + base64URL(count: 134)
    }

    /// A legacy server key, shaped like Firebase's: `AAAA<7 chars>:APA91b<134 chars>`, sent as
    /// `Authorization: key=…` (https://firebase.google.com/docs/cloud-messaging/http-server-ref).
    mutating func serverKey() -> String {
        "AAAA" + base64URL(count: 7) + ":APA91b" + base64URL(count: 134)
    }

    /// A device-group notification key (`APA91b…`, as in
    /// https://firebase.google.com/docs/cloud-messaging/android/device-group).
    mutating func notificationKey() -> String { "APA91b" + base64URL(count: 113) }

    /// A token-target message id, `0:<16-digit epoch µs>%<8 hex, twice>` (docs/http-v1.md; the example of
    /// https://firebase.google.com/docs/cloud-messaging/send/v1-api#send-messages-to-specific-devices).
    /// The hex part is fixed per app, as in real captures, so it is passed in.
    mutating func tokenMessageId(at instant: Instant, appHash: String) -> String {
        microCounter = (microCounter + 1) % 1000
        let micros = UInt64(max(0, instant.millis)) &* 1000 &+ microCounter
        // Written byte by byte: interpolation built it in four growing steps, a tenth of a send.
        var bytes: [UInt8] = [UInt8(ascii: "0"), UInt8(ascii: ":")]
        bytes.reserveCapacity(24 + 2 * appHash.utf8.count)
        bytes.append(contentsOf: String(micros).utf8)
        bytes.append(UInt8(ascii: "%"))
        bytes.append(contentsOf: appHash.utf8)
        bytes.append(contentsOf: appHash.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A topic or condition message id: a positive decimal int64, the legacy reference's topic
    /// `message_id` (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/http-v1.md).
    mutating func topicMessageId() -> String {
        String(random.next() >> 1 | 1 << 61)
    }

    /// Eight hex digits derived from `first/second` (FNV-1a), stable across runs; the texts are
    /// hashed where they lie, not joined first.
    static func hash8(_ first: String, _ second: String) -> String {
        var h: UInt32 = 2_166_136_261
        for part in [first, "/", second] {
            for b in part.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        }
        return String(unsafeUninitializedCapacity: 8) { out in
            for i in 0..<8 { out[i] = hexDigits[Int(h >> UInt32(28 - 4 * i) & 15)] }
            return 8
        }
    }
}

/// Shape checks for identifiers that peers hand us.
package enum IdentifierShape {
    /// Whether `token` looks like an FCM registration token (`<instance id>:APA91b<…>`), i.e. one
    /// the service would call unregistered rather than malformed when it does not know it.
    package static func isWellFormedToken(_ token: String) -> Bool {
        guard token.utf8.count >= 40, token.utf8.count <= 4096 else { return false }
        let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count >= 11, parts[1].hasPrefix("APA91b") else { return false }
        return token.utf8.allSatisfy { isTokenByte($0) }
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 58) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 95
    }

    /// Topic names match `[a-zA-Z0-9-_.~%]+` (the legacy reference's `to`,
    /// https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/limits.md).
    package static func isValidTopicName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 900
            && name.utf8.allSatisfy { b in
                (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
                    || b == 45 || b == 95 || b == 46 || b == 126 || b == 37
            }
    }
}
