// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// What FCM checks in `apns.payload` before it accepts a v1 message: the `aps` dictionary Apple
/// reads, key by key (Apple's "Generating a remote notification",
/// https://developer.apple.com/documentation/usernotifications/generating-a-remote-notification;
/// docs/simulation.md, "The APNs dictionary"). `payload` is a free-form Struct to the
/// transcoder, so these refusals come from FCM itself: 400 INVALID_ARGUMENT whose message is the
/// field violation's description, with a `BadRequest` detail before the `FcmError` one, as captured:
///
///     "Value type for APS key [badge] is a number."          field message.apns.payload.aps.badge
///     "Value for APS key [mutable-content] is either 0 or 1." (sent as `true`)
///     "Payload of Apple Push Notification Service must contain an [aps] key."
///     "Value of [aps] must be a non-empty dictionary."
///
/// Wordings for the other keys follow the same pattern [EMU]. Keys Apple does not define pass, as
/// the SDKs let custom `aps` keys through (python `Aps.custom_data`, go `Aps.CustomData`).
enum APSRules {
    private static let payloadField = "message.apns.payload"
    private static let apsField = payloadField + ".aps"

    enum Kind {
        case string, number, dictionary, stringOrDictionary, zeroOrOne
    }

    /// The top-level `aps` keys Apple defines, with the JSON type each must have.
    static let apsKeys: [String: Kind] = [
        "alert": .stringOrDictionary, "badge": .number, "sound": .stringOrDictionary,
        "content-available": .zeroOrOne, "mutable-content": .zeroOrOne,
        "category": .string, "thread-id": .string, "target-content-id": .string, "interruption-level": .string,
        "relevance-score": .number, "filter-criteria": .string,
        // Live Activities.
        "timestamp": .number, "event": .string, "content-state": .dictionary, "stale-date": .number, "dismissal-date": .number,
    ]

    /// Keys of the `alert` dictionary: strings, and the localisation arguments, arrays of strings.
    static let alertStrings: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key", "action",
    ]
    static let alertArguments: Set<String> = ["title-loc-args", "subtitle-loc-args", "loc-args"]

    static func check(_ payload: [(String, JSONValue)]) throws(V1Error) {
        guard !payload.isEmpty else { return }
        guard let aps = payload.first(where: { $0.0 == "aps" })?.1 else {
            throw refusal(payloadField, "Payload of Apple Push Notification Service must contain an [aps] key.")
        }
        guard let keys = aps.objectValue, !keys.isEmpty else {
            throw refusal(apsField, "Value of [aps] must be a non-empty dictionary.")
        }
        for (key, value) in keys where value != .null {
            guard let kind = apsKeys[key] else { continue }
            try checkType(value, kind, key: key, field: apsField + "." + key, noun: "APS key")
            if key == "alert", let alert = value.objectValue { try checkAlert(alert) }
            if key == "sound", let sound = value.objectValue { try checkSound(sound) }
        }
    }

    private static func checkAlert(_ alert: [(String, JSONValue)]) throws(V1Error) {
        for (key, value) in alert where value != .null {
            let field = apsField + ".alert." + key
            if alertStrings.contains(key) { try checkType(value, .string, key: key, field: field, noun: "APS alert key") }
            if alertArguments.contains(key), value.arrayValue?.allSatisfy({ $0.stringValue != nil }) != true {
                throw refusal(field, "Value type for APS alert key [\(key)] is an array of strings.")
            }
        }
    }

    /// A critical alert's sound: `{critical: 1, name, volume 0…1}` (SDKs: `CriticalSound`).
    private static func checkSound(_ sound: [(String, JSONValue)]) throws(V1Error) {
        for (key, value) in sound where value != .null {
            let field = apsField + ".sound." + key
            switch key {
            case "critical": try checkType(value, .zeroOrOne, key: key, field: field, noun: "APS sound key")
            case "name": try checkType(value, .string, key: key, field: field, noun: "APS sound key")
            case "volume":
                try checkType(value, .number, key: key, field: field, noun: "APS sound key")
                if let volume = value.doubleValue, !(0...1).contains(volume) {
                    throw refusal(field, "Value for APS sound key [volume] is between 0 and 1.")
                }
            default: continue
            }
        }
    }

    private static func checkType(_ value: JSONValue, _ kind: Kind, key: String, field: String, noun: String) throws(V1Error) {
        switch (kind, value) {
        case (.string, .string), (.number, .number), (.dictionary, .object), (.stringOrDictionary, .string),
            (.stringOrDictionary, .object):
            return
        case (.zeroOrOne, .number):
            guard value.doubleValue == 0 || value.doubleValue == 1 else {
                throw refusal(field, "Value for \(noun) [\(key)] is either 0 or 1.")
            }
        case (.zeroOrOne, .bool):
            throw refusal(field, "Value for \(noun) [\(key)] is either 0 or 1.")
        case (.string, _): throw refusal(field, "Value type for \(noun) [\(key)] is a string.")
        case (.number, _), (.zeroOrOne, _): throw refusal(field, "Value type for \(noun) [\(key)] is a number.")
        case (.dictionary, _): throw refusal(field, "Value type for \(noun) [\(key)] is a dictionary.")
        case (.stringOrDictionary, _): throw refusal(field, "Value type for \(noun) [\(key)] is a string or a dictionary.")
        }
    }

    private static func refusal(_ field: String, _ description: String) -> V1Error {
        V1Error(
            status: 400, statusName: "INVALID_ARGUMENT", message: description,
            details: [.badRequest(field: field, description: description), .fcmError("INVALID_ARGUMENT")]
        )
    }
}
