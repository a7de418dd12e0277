// SPDX-License-Identifier: Apache-2.0

/// The platform of an app instance; it decides how a delivery is rendered.
public enum Platform: String, Sendable, CaseIterable, Equatable {
    case android, ios, web

    /// The name as people write it (`iOS`, not `ios`).
    package var displayName: String {
        switch self {
        case .android: return "Android"
        case .ios: return "iOS"
        case .web: return "web"
        }
    }
}

/// Where an app instance is (docs/simulation.md, "Device states").
public enum DeviceState: String, Sendable, CaseIterable, Equatable {
    /// Connected, app in the foreground.
    case foreground
    /// Connected, app in the background.
    case background
    /// Android only: connected but idle; normal priority waits, high priority wakes it.
    case doze
    /// Not connected: everything waits for the next connection.
    case offline
    /// The app is gone; the next delivery attempt invalidates the token.
    case uninstalled

    /// Whether the device holds a connection to FCM in this state.
    package var isConnected: Bool {
        switch self {
        case .foreground, .background, .doze: return true
        case .offline, .uninstalled: return false
        }
    }
}

/// Message priority (https://firebase.google.com/docs/cloud-messaging/android/message-priority;
/// docs/simulation.md, "Priority and Doze").
public enum Priority: String, Sendable, Equatable {
    case normal, high
}

/// Which FCM client SDK an Android app was built with: what `android_v2` becomes on it. FCM
/// "automatically translates the message for devices running older client SDKs"
/// (https://firebase.google.com/docs/cloud-messaging/send/v2-api, "Backward compatibility"), the
/// "legacy V1 clients" that have only `onMessageReceived` (docs/http-v1.md, "android_v2").
public enum ClientSDK: String, Sendable, CaseIterable, Equatable {
    /// An SDK with the v2 callbacks, `onNotificationReceived` and `onBackgroundSyncReceived`.
    case current
    /// An SDK before them: every message reaches `onMessageReceived` or the tray.
    case legacy
}
