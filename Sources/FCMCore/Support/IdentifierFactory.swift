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
    /// The hex part is fixed per app, as in real captures, so it is passed in (`appHash`).
    mutating func tokenMessageId(at instant: Instant, appHash: UInt32) -> String {
        microCounter = (microCounter + 1) % 1000
        let micros = UInt64(max(0, instant.millis)) &* 1000 &+ microCounter
        // Written once into a string of its final size: a send makes one, and building it from
        // parts (the number's own string, then growing appends) was a few percent of a send.
        var digits = 1
        var rest = micros
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return String(unsafeUninitializedCapacity: 2 + digits + 1 + 16) { out in
            out[0] = UInt8(ascii: "0")
            out[1] = UInt8(ascii: ":")
            var value = micros
            for i in stride(from: 1 + digits, through: 2, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            out[2 + digits] = UInt8(ascii: "%")
            for copy in 0..<2 {
                for i in 0..<8 { out[3 + digits + 8 * copy + i] = Self.hexDigits[Int(appHash >> UInt32(28 - 4 * i) & 15)] }
            }
            return 2 + digits + 1 + 16
        }
    }

    /// A topic or condition message id: a positive decimal int64, the legacy reference's topic
    /// `message_id` (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/http-v1.md).
    mutating func topicMessageId() -> String {
        String(random.next() >> 1 | 1 << 61)
    }

    /// The FNV-1a hash of `first/second`, stable across runs, that a message id shows as eight hex
    /// digits (`tokenMessageId`); the texts are hashed where they lie, not joined first.
    static func appHash(_ first: String, _ second: String) -> UInt32 {
        // From the contiguous bytes: a walk of the UTF-8 view cost several times as much a byte.
        func mix(_ h: UInt32, _ text: String) -> UInt32 {
            var text = text
            return text.withUTF8 { bytes in bytes.reduce(h) { ($0 ^ UInt32($1)) &* 16_777_619 } }
        }
        return mix((mix(2_166_136_261, first) ^ UInt32(UInt8(ascii: "/"))) &* 16_777_619, second)
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
