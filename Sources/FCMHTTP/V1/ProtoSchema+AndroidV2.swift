// SPDX-License-Identifier: Apache-2.0

/// `Message.android_v2`, the preview `AndroidConfigV2` (https://firebase.google.com/docs/cloud-messaging/send/v2-api;
/// its fields as the fcm v1 discovery document's generated clients spell them: googleapis.dev/dotnet
/// Google.Apis.FirebaseCloudMessaging.v1 `AndroidConfigV2`, `AndroidRemoteNotification`, pub.dev googleapis
/// `fcm_v1` `AndroidNotificationV2`). docs/http-v1.md, "android_v2".
extension FCMSchema {
    /// "Mutually exclusive with android. Requests with both AndroidConfig and AndroidConfigV2 will be
    /// rejected" (the discovery document's `Message.androidV2`). The proto is not public, so the
    /// oneof's name is the emulator's; the refusal is worded as the transcoder words a oneof set twice.
    static let androidConfigOneof: (name: String, fields: Set<String>) = ("android_config", ["android", "android_v2"])

    static let androidV2 = ProtoMessage(
        typeName: fcm + "AndroidConfigV2",
        fields: [
            ("collapse_key", .string), ("ttl", .duration), ("restricted_package_name", .string), ("data", .stringMap),
            ("remote_notification", .message(androidRemoteNotification)), ("background_sync", .message(androidBackgroundSync)),
            ("fcm_options", .message(androidFcmOptions)), ("direct_boot_ok", .bool), ("bandwidth_constrained_ok", .bool),
            ("restricted_satellite_ok", .bool),
        ],
        // The guide's "union type": one of the two message types (the oneof's name is the emulator's).
        oneofs: [("message_type", ["remote_notification", "background_sync"])]
    )

    static let androidRemoteNotification = ProtoMessage(
        typeName: fcm + "AndroidRemoteNotification",
        fields: [("notification", .message(androidNotificationV2)), ("mutable_content", .bool), ("use_as_v1_data_message", .bool)]
    )

    /// An empty message: `"background_sync": {}` is how a send chooses it (firebase-admin-go's
    /// integration test `androidV2MinimalBackgroundSyncMessage`).
    static let androidBackgroundSync = ProtoMessage(typeName: fcm + "AndroidBackgroundSyncMessage", fields: [])

    /// `AndroidNotification`'s fields without `proxy` and `bypass_proxy_notification`, and with the
    /// integer `id` that forms, with `tag`, the notification's identifier in the drawer.
    static let androidNotificationV2 = ProtoMessage(
        typeName: fcm + "AndroidNotificationV2",
        fields: androidNotification.fields.compactMap { field in
            switch field.name {
            case "proxy", "bypass_proxy_notification": return nil
            case "light_settings": return (field.name, .message(androidNotificationV2LightSettings))
            default: return field
            }
        } + [("id", .int32)]
    )

    /// The discovery document names it `GoogleFirebaseFcmV1AndroidNotificationV2LightSettings`: a nested type.
    static let androidNotificationV2LightSettings = ProtoMessage(
        typeName: fcm + "AndroidNotificationV2.LightSettings", fields: lightSettings.fields)
}
