// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A fresh emulator per test on the virtual clock, with helpers that read as the rules do.
struct Harness {
    let emu: Emulator
    let project = DemoProject.id

    init(_ configure: (inout EmulatorSettings) -> Void = { _ in }) {
        var settings = EmulatorSettings()
        configure(&settings)
        emu = Emulator(settings: settings)
    }

    func device(
        _ platform: Platform = .android, state: DeviceState = .foreground, name: String? = nil, topics: [String] = []
    ) throws -> DeviceInfo {
        try emu.createDevice(
            DeviceSpec(platform: platform, appId: DeviceSpec.defaultAppId(for: platform), name: name, state: state, topics: topics),
            projectId: project
        )
    }

    @discardableResult
    func sendData(
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
    func sendNotification(_ to: DeviceInfo, title: String = "t", collapseKey: String? = nil) throws -> SendOutcome {
        try emu.send(
            SendRequest(
                target: .token(to.token),
                content: MessageContent(notification: NotificationContent(title: title, body: "b"), collapseKey: collapseKey), api: .v1),
            from: project
        )
    }

    func inbox(_ device: DeviceInfo) throws -> [Delivery] { try emu.inbox(String(device.id), projectId: project).1 }

    func info(_ device: DeviceInfo) throws -> DeviceInfo { try emu.device(String(device.id), projectId: project) }

    func setState(_ device: DeviceInfo, _ state: DeviceState) throws { try emu.setState(String(device.id), projectId: project, to: state) }

    func events(_ device: DeviceInfo, _ kinds: Event.Kind...) throws -> [Event] {
        try emu.events(EventQuery(deviceId: device.id, kinds: kinds.isEmpty ? nil : Set(kinds)))
    }

    func advance(seconds: Int64) throws { try emu.advance(byMillis: seconds * 1000) }
}

extension Delivery {
    var dataValue: String? {
        message?.content.data.first { $0.0 == "k" }?.1
    }
}

/// The `FCMError` a call throws, or nil when it succeeds.
func thrownFCMError(_ body: () throws -> Void) -> FCMError? {
    do {
        try body()
        return nil
    } catch let error as FCMError {
        return error
    } catch {
        return nil
    }
}
