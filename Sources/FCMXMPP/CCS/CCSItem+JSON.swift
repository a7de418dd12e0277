// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

extension CCSItem {
    /// The JSON CCS puts inside `<gcm>` for an upstream message or a receipt
    /// (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref).
    /// The XMPP front sends it; the control API echoes the upstream message it queued, in CCS's
    /// words (CCS JSON lives with XMPP).
    package var json: JSONValue {
        switch body {
        case .upstream(let message):
            return .object([
                ("category", .string(message.category)), ("data", .object(message.data.map { ($0.0, .string($0.1)) })),
                ("time_to_live", .int(message.ttlSeconds)), ("message_id", .string(message.messageId)), ("from", .string(message.from)),
            ])
        case .receipt(let receipt):
            return .object([
                ("category", .string(receipt.category)),
                (
                    "data",
                    .object([
                        ("message_status", .string("MESSAGE_SENT_TO_DEVICE")), ("original_message_id", .string(receipt.originalMessageId)),
                        ("device_registration_id", .string(receipt.deviceToken)),
                        ("message_sent_timestamp", .string(String(receipt.sentAt.millis))),
                    ])
                ),
                ("message_id", .string(receipt.messageId)), ("message_type", .string("receipt")),
                ("from", .string("gcm.googleapis.com")), ("time_to_live", .int(0)),
            ])
        }
    }
}
