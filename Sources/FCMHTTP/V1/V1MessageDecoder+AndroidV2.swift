// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// `message.android_v2` (AndroidConfigV2, preview): https://firebase.google.com/docs/cloud-messaging/send/v2-api
/// and docs/http-v1.md, "android_v2".
extension V1MessageDecoder {
    static func androidV2(_ a: Fields) throws(V1Error) -> AndroidOptions {
        var options = try androidCommon(a, field: "message.android_v2")
        if let remote = a.object("remote_notification").map(Fields.init) {
            // The priority is "implied by union type": high for a remote notification, normal for
            // a background sync (the v2 guide's table); DeliveryProfile reads it from `v2`.
            options.v2 = .remoteNotification(
                mutableContent: remote.bool("mutable_content") ?? false, useAsV1DataMessage: remote.bool("use_as_v1_data_message") ?? false)
            if let n = remote.object("notification") {
                options.notification = try androidNotification(n, field: "message.android_v2.remote_notification.notification")
            }
        } else if a.value("background_sync") != nil {
            options.v2 = .backgroundSync
        } else {
            // Every Admin SDK asks for exactly one ("Exactly one of remoteNotification or
            // backgroundSync must be specified", firebase-admin-java AndroidConfigV2); a send
            // with neither has no type to imply a priority, so the emulator refuses it by field.
            throw V1Error.invalidArgument(field: "message.android_v2")
        }
        return options
    }
}
