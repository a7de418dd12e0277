// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// The JSON of the messages CCS itself writes to an app server (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref);
/// upstream messages and receipts come from the core's values (`CCSItem.json`).
enum CCSPayloads {
    static let connectionDraining = JSONValue.object([
        ("message_type", .string("control")), ("control_type", .string("CONNECTION_DRAINING")),
    ])

    static func ack(messageId: String, from: String, canonicalToken: String?) -> JSONValue {
        .object(omittingNils: [
            ("from", .string(from)), ("message_id", .string(messageId)), ("message_type", .string("ack")),
            ("registration_id", canonicalToken.map(JSONValue.string)),
        ])
    }

    static func nack(messageId: String, from: String, error: String, description: String) -> JSONValue {
        .object([
            ("message_type", .string("nack")), ("message_id", .string(messageId)), ("from", .string(from)),
            ("error", .string(error)), ("error_description", .string(description)),
        ])
    }
}
