// SPDX-License-Identifier: Apache-2.0

/// The shape of a protobuf message as its JSON mapping reads it: enough of the schema to parse
/// requests the way Google's JSON transcoder does (the proto3 JSON mapping, protobuf.dev/programming-guides/json).
indirect enum ProtoType: Sendable {
    case string
    case bool
    case int32
    case double
    /// `google.protobuf.Duration`: `"3.5s"`.
    case duration
    /// `google.protobuf.Timestamp`: RFC 3339.
    case timestamp
    /// `map<string, string>`.
    case stringMap
    /// `google.protobuf.Struct`: any JSON object.
    case structValue
    case enumeration(typeName: String, values: [String])
    case message(ProtoMessage)
    case repeated(ProtoType)
}

/// A message type: its full name (for error texts) and its fields by proto (snake_case) name.
/// A class: a nested message is reached through `ProtoType.message` for every field read, and a
/// struct's copy retained each of its fields.
final class ProtoMessage: Sendable {
    let typeName: String
    let fields: [(name: String, type: ProtoType)]
    /// Groups of fields of which at most one may be set, each with its oneof's name.
    let oneofs: [(name: String, fields: Set<String>)]
    /// Field index by proto name and by JSON (lowerCamelCase) name, built once.
    private let index: ProtoFieldIndex
    /// The oneof each field belongs to, by index: asked for every field read.
    private let oneofOf: [Int?]

    init(typeName: String, fields: [(name: String, type: ProtoType)], oneofs: [(name: String, fields: Set<String>)] = []) {
        self.typeName = typeName
        self.fields = fields
        self.oneofs = oneofs
        var names: [(name: String, field: Int)] = []
        for (i, field) in fields.enumerated() {
            names.append((field.name, i))
            let camel = ProtoNames.camel(field.name)
            if camel != field.name { names.append((camel, i)) }
        }
        index = ProtoFieldIndex(names)
        oneofOf = fields.map { field in oneofs.firstIndex { $0.fields.contains(field.name) } }
    }

    func field(jsonName: String) -> (name: String, type: ProtoType, oneof: Int?)? {
        index[jsonName].map { (fields[$0].name, fields[$0].type, oneofOf[$0]) }
    }
}

enum ProtoNames {
    /// `restricted_package_name` → `restrictedPackageName`, the proto3 JSON name.
    static func camel(_ snake: String) -> String {
        var out = ""
        var upper = false
        for ch in snake {
            if ch == "_" {
                upper = true
            } else {
                out += upper ? ch.uppercased() : String(ch)
                upper = false
            }
        }
        return out
    }
}

/// The FCM v1 schema, from the discovery document and the SDK encoders (firebase.google.com/docs/reference/fcm/rest/v1/projects.messages).
enum FCMSchema {
    static let fcm = "google.firebase.fcm.v1."

    static let sendRequest = ProtoMessage(
        typeName: fcm + "SendMessageRequest",
        fields: [("message", .message(message)), ("validate_only", .bool)]
    )

    static let message = ProtoMessage(
        typeName: fcm + "Message",
        fields: [
            ("name", .string), ("token", .string), ("topic", .string), ("condition", .string), ("fid", .string),
            ("data", .stringMap), ("notification", .message(notification)), ("android", .message(android)),
            ("webpush", .message(webpush)), ("apns", .message(apns)), ("fcm_options", .message(fcmOptions)),
            ("android_v2", .message(androidV2)),
        ],
        oneofs: [("target", ["token", "topic", "condition", "fid"]), androidConfigOneof]
    )

    static let notification = ProtoMessage(
        typeName: fcm + "Notification", fields: [("title", .string), ("body", .string), ("image", .string)])

    static let fcmOptions = ProtoMessage(typeName: fcm + "FcmOptions", fields: [("analytics_label", .string)])

    static let android = ProtoMessage(
        typeName: fcm + "AndroidConfig",
        fields: [
            ("collapse_key", .string),
            ("priority", .enumeration(typeName: fcm + "AndroidMessagePriority", values: ["NORMAL", "HIGH"])),
            ("ttl", .duration), ("restricted_package_name", .string), ("data", .stringMap),
            ("notification", .message(androidNotification)), ("fcm_options", .message(androidFcmOptions)),
            ("direct_boot_ok", .bool), ("bandwidth_constrained_ok", .bool), ("restricted_satellite_ok", .bool),
        ]
    )

    static let androidFcmOptions = ProtoMessage(typeName: fcm + "AndroidFcmOptions", fields: [("analytics_label", .string)])

    static let androidNotification = ProtoMessage(
        typeName: fcm + "AndroidNotification",
        fields: [
            ("title", .string), ("body", .string), ("icon", .string), ("color", .string), ("sound", .string), ("tag", .string),
            ("click_action", .string), ("body_loc_key", .string), ("body_loc_args", .repeated(.string)),
            ("title_loc_key", .string), ("title_loc_args", .repeated(.string)), ("channel_id", .string), ("ticker", .string),
            ("sticky", .bool), ("event_time", .timestamp), ("local_only", .bool),
            (
                "notification_priority",
                .enumeration(
                    typeName: fcm + "NotificationPriority",
                    values: ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]
                )
            ),
            ("default_sound", .bool), ("default_vibrate_timings", .bool), ("default_light_settings", .bool),
            ("vibrate_timings", .repeated(.duration)),
            ("visibility", .enumeration(typeName: fcm + "Visibility", values: ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])),
            ("notification_count", .int32), ("light_settings", .message(lightSettings)), ("image", .string),
            ("proxy", .enumeration(typeName: fcm + "Proxy", values: ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])),
            ("bypass_proxy_notification", .bool),
        ]
    )

    static let lightSettings = ProtoMessage(
        typeName: fcm + "LightSettings",
        fields: [("color", .message(color)), ("light_on_duration", .duration), ("light_off_duration", .duration)]
    )

    static let color = ProtoMessage(
        typeName: "google.type.Color",
        fields: [("red", .double), ("green", .double), ("blue", .double), ("alpha", .double)]
    )

    static let webpush = ProtoMessage(
        typeName: fcm + "WebpushConfig",
        fields: [
            ("headers", .stringMap), ("data", .stringMap), ("notification", .structValue), ("fcm_options", .message(webpushFcmOptions)),
        ]
    )

    static let webpushFcmOptions = ProtoMessage(
        typeName: fcm + "WebpushFcmOptions", fields: [("link", .string), ("analytics_label", .string)])

    static let apns = ProtoMessage(
        typeName: fcm + "ApnsConfig",
        fields: [
            ("headers", .stringMap), ("payload", .structValue), ("fcm_options", .message(apnsFcmOptions)), ("live_activity_token", .string),
        ]
    )

    static let apnsFcmOptions = ProtoMessage(typeName: fcm + "ApnsFcmOptions", fields: [("analytics_label", .string), ("image", .string)])
}
