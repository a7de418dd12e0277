// SPDX-License-Identifier: Apache-2.0

/// One thing an app received: a message, or the deleted-messages signal.
public struct Delivery: Sendable {
    public enum Kind: String, Sendable {
        case message
        /// Android's `onDeletedMessages()`: stored messages were discarded (docs/simulation.md,
        /// "The 100-message cap" and "Long absence").
        case deletedMessages
    }

    /// How the app got it (docs/simulation.md, "Android rendering", "iOS rendering", "Web rendering").
    package enum Handling: String, Sendable {
        /// Shown by the system in the notification tray; data is handed over on tap.
        case tray
        /// Handed to the app's callback (`onMessageReceived`, `didReceiveRemoteNotification`, `onMessage`…).
        case app
        /// A silent (content-available) push to a backgrounded iOS app.
        case silent
    }

    package let kind: Kind
    package let message: Message?
    package let time: Instant
    package let handling: Handling
    /// The app's state when it got the delivery.
    package let appState: DeviceState
    package let priority: Priority
    package let originalPriority: Priority
    package let ttlSeconds: Int64
    /// The collapse key as the app sees it.
    package let collapseKey: String?
    /// Whether the message's bytes are counted with this delivery (`InboxLedger`).
    var chargesMessage = false
}
