// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// `.../devices/{device}/tray`: the notifications the user sees, as the inbox shows what the app
/// received (Emulator+Tray.swift).
extension ControlAPI {
    func registerTray(into router: inout Router) {
        let base = Self.prefix + "/projects/{project}/devices/{device}/tray"
        router.add(
            "GET", base,
            handle { _, params throws(FCMError) in
                ControlJSON.response(ControlJSON.tray(try emulator.tray(try params.require("device"), projectId: try params.require("project"))))
            })
        router.add(
            "POST", base,
            handle { request, params throws(FCMError) in
                // The app shows a notification for a message it received.
                let body = try ControlBody(request, allowed: ["messageId", "tag"])
                guard let messageId = try body.string("messageId") else {
                    throw FCMError(.invalidArgument, "Field 'messageId' is required: the message the notification is for", field: "messageId")
                }
                let tray = try emulator.showNotification(
                    try params.require("device"), projectId: try params.require("project"), messageId: messageId, tag: try body.string("tag"))
                return ControlJSON.response(status: 201, ControlJSON.tray(tray))
            })
        router.add(
            "DELETE", base,
            handle { _, params throws(FCMError) in
                try emulator.clearTray(try params.require("device"), projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
    }
}

extension ControlJSON {
    /// The tray, oldest first: each notification is the delivery shown, with its tag.
    static func tray(_ tray: Emulator.Tray) -> JSONValue {
        .object([
            ("device", device(tray.device)),
            ("notifications", .array(tray.entries.map { entry in
                var fields = delivery(entry.delivery, platform: tray.device.platform, clientSdk: tray.device.clientSdk).objectValue ?? []
                if let tag = entry.tag { fields.insert(("tag", .string(tag)), at: 0) }
                return .object(fields)
            })),
            ("unshownHighPriority", .int(tray.unshownHighPriority)),
        ])
    }
}
