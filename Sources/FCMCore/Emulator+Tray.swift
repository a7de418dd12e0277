// SPDX-License-Identifier: Apache-2.0

/// The notification tray of each device: what the user sees (`NotificationTray`).
extension Emulator {
    /// What the tray of one device shows, oldest first, and how many high-priority data messages
    /// have arrived since a notification was last shown (toward `deprioritizeAfter`).
    package struct Tray: Sendable {
        package let device: DeviceInfo
        package let entries: [TrayEntry]
        package let unshownHighPriority: Int
    }

    package func tray(_ reference: String, projectId: String) throws(FCMError) -> Tray {
        try withWorld { (w: inout World) throws(FCMError) -> Tray in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            return Tray(device: w.info(device), entries: device.tray, unshownHighPriority: Int(device.unshownHighPriority))
        }
    }

    /// The app shows a notification for a message it received (a data message handled in
    /// `onMessageReceived`, say), under `tag` when given: what an app does to keep its
    /// high-priority messages from being deprioritized.
    package func showNotification(_ reference: String, projectId: String, messageId: String, tag: String?) throws(FCMError) -> Tray {
        try withWorld { (w: inout World) throws(FCMError) -> Tray in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            guard let delivery = device.inbox.last(where: { $0.message?.id == messageId }) else {
                throw FCMError(.notFound, "The device received no message \(messageId)", field: "messageId")
            }
            if let tag, tag.isEmpty || tag.utf8.count > 1024 {
                throw FCMError(.invalidArgument, "tag must be 1 to 1024 bytes", field: "tag")
            }
            w.showInTray(TrayEntry(delivery: delivery, tag: tag), on: device.id)
            let updated = try w.device(device.id)
            return Tray(device: w.info(updated), entries: updated.tray, unshownHighPriority: Int(updated.unshownHighPriority))
        }
    }

    /// The user clears every notification of the app.
    package func clearTray(_ reference: String, projectId: String) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in
            let id = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).id
            w.devices[Int(id)]?.tray = []
        }
    }
}
