// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A fresh emulator on the virtual clock, with helpers that read as the rules do: make a device,
/// send it data or a notification, move the clock, read its inbox and events. Each test makes its
/// own, so tests running in parallel never share a world.
public struct Harness: Sendable {
    public let emu: Emulator
    /// Every helper acts in the demo project, which exists in a fresh emulator.
    public let project = DemoProject.id

    public init(_ configure: (inout EmulatorSettings) -> Void = { _ in }) {
        var settings = EmulatorSettings()
        configure(&settings)
        emu = Emulator(settings: settings)
    }

    public func device(
        _ platform: Platform = .android, state: DeviceState = .foreground, name: String? = nil, topics: [String] = []
    ) throws -> DeviceInfo {
        try emu.createDevice(
            DeviceSpec(platform: platform, appId: DeviceSpec.defaultAppId(for: platform), name: name, state: state, topics: topics),
            projectId: project
        )
    }

    /// A v1 data message to `to`; `Delivery.dataValue` reads back the default's one value.
    @discardableResult
    public func sendData(
        _ to: DeviceInfo, _ data: StringPairs = [("k", "v")], collapseKey: String? = nil, priority: Priority? = nil, ttl: Int64? = nil
    ) throws -> SendOutcome {
        try emu.send(
            SendRequest(
                target: .token(to.token),
                content: MessageContent(data: data, collapseKey: collapseKey, priority: priority, ttlSeconds: ttl), api: .v1),
            from: project
        )
    }

    @discardableResult
    public func sendNotification(_ to: DeviceInfo, title: String = "t", collapseKey: String? = nil) throws -> SendOutcome {
        try emu.send(
            SendRequest(
                target: .token(to.token),
                content: MessageContent(notification: NotificationContent(title: title, body: "b"), collapseKey: collapseKey), api: .v1),
            from: project
        )
    }

    public func inbox(_ device: DeviceInfo) throws -> [Delivery] { try emu.inbox(String(device.id), projectId: project).1 }

    public func info(_ device: DeviceInfo) throws -> DeviceInfo { try emu.device(String(device.id), projectId: project) }

    public func setState(_ device: DeviceInfo, _ state: DeviceState) throws {
        try emu.setState(String(device.id), projectId: project, to: state)
    }

    public func events(_ device: DeviceInfo, _ kinds: Event.Kind...) throws -> [Event] {
        try emu.events(EventQuery(deviceId: device.id, kinds: kinds.isEmpty ? nil : Set(kinds)))
    }

    /// Moves the virtual clock: timers due on the way fire in order, as they would in real time.
    public func advance(seconds: Int64) throws { try emu.advance(byMillis: seconds * 1000) }
}

extension Delivery {
    /// The value of key `k`, the key `Harness.sendData` sends by default.
    public var dataValue: String? {
        message?.content.data.first { $0.0 == "k" }?.1
    }
}
