// SPDX-License-Identifier: Apache-2.0

/// A Firebase project: the id used in v1 URLs, the number that is the sender id of legacy, XMPP and
/// device-group calls, and the server keys of the legacy `key=` header.
public struct Project: Sendable, Equatable {
    package let id: String
    package let number: String
    package var serverKeys: [String]
    package let createdAt: Instant
    /// Whether the Firebase Cloud Messaging API (`fcm.googleapis.com`, the v1 API) is enabled, as
    /// on a project of the Google Cloud console. Off, every v1 call answers 403 `SERVICE_DISABLED`
    /// (docs/http-v1.md, "An API that is not enabled"), the first error a new project meets.
    package var apiEnabled = true

    package init(id: String, number: String, serverKeys: [String], createdAt: Instant) {
        self.id = id
        self.number = number
        self.serverKeys = serverKeys
        self.createdAt = createdAt
    }

    /// Project ids: lower-case letters, digits and hyphens, starting with a letter. Google asks for
    /// 6–30 characters; the emulator accepts 4–30, so that short test ids work.
    package static func isValidId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (4...30).contains(bytes.count), let first = bytes.first, first >= 97, first <= 122 else { return false }
        return bytes.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    /// Server keys one project may hold, and bytes (UTF-8) in each: every legacy and CCS call
    /// looks a key up across all projects, and the projects list repeats them all.
    /// A Firebase server key is about 152 characters ("AAAA…:APA91b…"), and a project
    /// has one or a few (Firebase console, Cloud Messaging tab).
    package static let maxServerKeys = 16
    package static let maxServerKeyBytes = 256

    /// Refuses more than `maxServerKeys` keys, or an empty one or one past `maxServerKeyBytes`.
    package static func checkServerKeys(_ keys: [String]) throws(FCMError) {
        guard keys.count <= maxServerKeys else {
            throw FCMError(.invalidArgument, "A project holds at most \(maxServerKeys) server keys, not \(keys.count)", field: "serverKeys")
        }
        for key in keys where key.isEmpty || key.utf8.count > maxServerKeyBytes {
            throw FCMError(
                .invalidArgument, "A server key is 1–\(maxServerKeyBytes) bytes, not \(key.utf8.count)", field: "serverKeys")
        }
    }

    /// Project numbers are decimal, 1–20 digits, as sender ids are.
    package static func isValidNumber(_ number: String) -> Bool {
        (1...20).contains(number.utf8.count) && number.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}

/// What the emulator creates at start-up so that a newcomer can send with no configuration.
public enum DemoProject {
    public static let id = "demo-fcm-emu"
    public static let number = "123456789012"
    /// Fixed, so that documentation and scripts can use it; it only opens the local emulator.
    public static let serverKey = "AAAAdemo000:APA91bDEMO-fcm-emu-server-key-for-local-testing-only"
}
