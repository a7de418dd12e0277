// SPDX-License-Identifier: Apache-2.0

/// What to create: a new app instance.
public struct DeviceSpec: Sendable {
    package var platform: Platform
    package var appId: String
    /// A unique name within the project, usable in place of the id in the control API.
    package var name: String?
    /// A registration token to use instead of a generated one.
    package var token: String?
    package var fid: String?
    package var state: DeviceState
    /// Other projects' sender ids allowed to message this instance.
    package var extraSenders: [String]
    package var topics: [String]
    /// The VAPID public key a web device's subscription is bound to (uncompressed P-256 point),
    /// as `pushManager.subscribe({applicationServerKey})` binds it (RFC 8292 §4).
    package var applicationServerKey: [UInt8]?
    /// Android only: the FCM client SDK the app was built with (what `android_v2` becomes on it).
    package var clientSdk: ClientSDK = .current

    public init(
        platform: Platform, appId: String, name: String? = nil, token: String? = nil, fid: String? = nil,
        state: DeviceState = .foreground, extraSenders: [String] = [], topics: [String] = []
    ) {
        self.platform = platform
        self.appId = appId
        self.name = name
        self.token = token
        self.fid = fid
        self.state = state
        self.extraSenders = extraSenders
        self.topics = topics
    }

    /// The app id of the demo apps, per platform.
    package static func defaultAppId(for platform: Platform) -> String {
        switch platform {
        case .android: return "com.example.app"
        case .ios: return "com.example.app"
        case .web: return "https://localhost"
        }
    }
}

/// A snapshot of one app instance, as the control API shows it.
public struct DeviceInfo: Sendable, Equatable {
    package let id: DeviceID
    package let projectId: String
    package let name: String?
    package let platform: Platform
    package let clientSdk: ClientSDK
    package let appId: String
    package let token: String
    package let fid: String
    package let state: DeviceState
    /// False once the token was replaced or deleted, and once it expired for inactivity
    /// (docs/simulation.md, "Expired tokens").
    package let tokenValid: Bool
    package let senders: [String]
    package let topics: [String]
    package let createdAt: Instant
    package let lastConnectedAt: Instant
    /// When the app was last connected or refreshed its token: what an Android token's expiry
    /// counts from (`staleTokenDays`).
    package let lastSeenAt: Instant
    /// Messages stored for it now.
    package let storedCount: Int
    /// Of those, the ones under a collapse key (at most 4 keys); the rest count toward the
    /// non-collapsible cap of 100 (docs/simulation.md, "Collapse keys", "The 100-message cap").
    package let storedCollapsible: Int
    package var storedNonCollapsible: Int { storedCount - storedCollapsible }
    /// When the app last received something; nil before its first delivery.
    package let lastDeliveryAt: Instant?
    package let deliveredCount: Int
    package let deletedSignalOwed: Bool
    /// A web device's Web Push subscription; nil on other platforms.
    package let webPush: WebPushSubscription?
    /// A real receiver's link, and whether its MCS connection is logged in (docs/receivers.md).
    package let receiver: ReceiverLink?
    package let receiverConnected: Bool
}

extension World {
    /// - Parameter topics: false leaves `topics` empty, for answers that give them once for many
    ///   devices (sorting 2000 names per device under the lock is the cost it saves).
    func info(_ device: Device, topics: Bool = true) -> DeviceInfo {
        let project = projects[Int(device.projectIndex)]?.project
        return DeviceInfo(
            id: device.id, projectId: project?.id ?? "", name: device.name, platform: device.platform,
            clientSdk: device.clientSdk, appId: device.appId, token: token(of: device), fid: fid(of: device), state: device.state,
            tokenValid: device.tokenValid && !isExpired(device), senders: [project?.number ?? ""] + device.extraSenders,
            topics: topics ? device.topics.keys.sorted() : [], createdAt: device.createdAt,
            lastConnectedAt: device.state.isConnected ? now : device.lastConnectedAt,
            lastSeenAt: device.state.isConnected ? now : device.lastSeenAt,
            storedCount: device.store?.items.count ?? 0,
            storedCollapsible: device.store?.items.lazy.filter(\.profile.isCollapsible).count ?? 0,
            lastDeliveryAt: device.inbox.last?.time, deliveredCount: min(device.inbox.count, settings.maxInboxPerDevice),
            deletedSignalOwed: device.deletedSignalOwed, webPush: device.webPush, receiver: device.receiver,
            receiverConnected: device.receiver.map { receivers.checkins[$0.androidId]?.connection != nil } ?? false
        )
    }
}
