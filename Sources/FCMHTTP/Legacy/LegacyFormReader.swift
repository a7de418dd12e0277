// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMLegacyFormat
import FCMTransport

/// Reads the plain-text variant (https://firebase.google.com/docs/cloud-messaging/http-server-ref;
/// docs/legacy.md): `registration_id=…&collapse_key=…&data.k=v`,
/// one recipient, booleans as `1`/`0`. Refusals are per-result error names (`Error=…` lines).
enum LegacyFormReader {
    struct Refusal: Error {
        let error: String
    }

    static func read(_ body: [UInt8]) throws(Refusal) -> LegacyRequest {
        let pairs = HTTPRequest.parseQuery(String(decoding: body, as: UTF8.self))
        func value(_ key: String) -> String? { pairs.first { $0.0 == key }?.1 }
        guard let token = value("registration_id"), !token.isEmpty else { throw Refusal(error: "MissingRegistration") }
        var content = MessageContent()
        content.collapseKey = value("collapse_key")
        if let key = content.collapseKey, key.utf8.count > EmulatorSettings.maxCollapseKeyBytes {
            throw Refusal(error: "InvalidParameters")
        }
        content.restrictedPackageName = value("restricted_package_name")
        if let ttl = value("time_to_live") {
            guard let seconds = Int64(ttl), (0...EmulatorSettings.maxTTLSeconds).contains(seconds) else {
                throw Refusal(error: "InvalidTtl")
            }
            content.ttlSeconds = seconds
        }
        if let priority = value("priority") { content.priority = priority == "high" || priority == "10" ? .high : .normal }
        content.data = pairs.compactMap { key, value in key.hasPrefix("data.") ? (String(key.dropFirst(5)), value) : nil }
        if content.data.contains(where: { LegacyPayload.isReserved($0.0) }) { throw Refusal(error: "InvalidDataKey") }
        let dryRun = value("dry_run") == "1" || value("dry_run") == "true"
        return LegacyRequest(recipients: .tokens([token], multicast: false), content: content, dryRun: dryRun)
    }
}
