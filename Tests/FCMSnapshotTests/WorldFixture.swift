// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import Foundation

/// Builds a world holding every kind of state a snapshot keeps, through the public API only.
enum WorldFixture {
    static let options = SnapshotOptions(include: [.events, .inboxes], emulatorVersion: "test")

    static func make() throws -> Emulator {
        var settings = EmulatorSettings()
        settings.seed = 42
        settings.tokenRefreshGraceSeconds = 3600
        settings.normalPriorityLatencyMillis = 0
        settings.highPriorityLatencyMillis = 250
        // A day: the windows still count when the snapshot is taken (an ended one is not kept).
        settings.deviceRateLimit = EmulatorSettings.RateLimit(messages: 1000, windowSeconds: 86_400)
        settings.dozeMaintenanceIntervalSeconds = 600
        let emu = Emulator(settings: settings, clock: .virtual(start: .virtualEpoch))
        let p = DemoProject.id
        try emu.createProject(id: "second-project")
        try emu.createProject(id: "gone-project")
        try emu.deleteProject(id: "gone-project")

        let offline = try emu.createDevice(
            DeviceSpec(
                platform: .android, appId: "com.example.app", name: "offline", state: .offline, extraSenders: ["555"],
                topics: ["news", "sport"]), projectId: p)
        let dozing = try emu.createDevice(
            DeviceSpec(platform: .android, appId: "com.example.app", name: "dozing", state: .doze, topics: ["news"]), projectId: p)
        let phone = try emu.createDevice(
            DeviceSpec(platform: .ios, appId: "com.example.ios", state: .background, topics: ["news"]), projectId: p)
        let web = try emu.createDevice(DeviceSpec(platform: .web, appId: "https://localhost", state: .foreground), projectId: p)
        let doomed = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", state: .offline), projectId: p)
        let gone = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", state: .offline), projectId: p)
        _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.other.app", state: .offline), projectId: "second-project")

        func send(_ target: MessageTarget, _ content: MessageContent, api: SourceAPI = .v1) throws {
            _ = try emu.send(SendRequest(target: target, content: content, api: api), from: p)
        }
        try send(.token(offline.token), MessageContent(data: [("k", "v"), ("k", "again")], ttlSeconds: 7200))
        try send(.token(offline.token), MessageContent(notification: NotificationContent(title: "Hi", body: "there"), collapseKey: "greet"))
        try send(.topic("news"), MessageContent(data: [("topic", "1")], priority: .normal, ttlSeconds: 3000))
        var apns = MessageContent(data: [("x", "y")])
        apns.apns = APNsOptions(headers: [("apns-priority", "5")], payload: [("aps", .object([("content-available", .int(1))]))])
        try send(.token(phone.token), apns)
        var android = MessageContent(data: [("a", "b")])
        android.android = AndroidOptions(collapseKey: "ck", priority: .high, ttlSeconds: 100, notification: [("title", .string("T"))])
        try send(.token(dozing.token), android)
        try send(.condition(try TopicCondition.parse("'news' in topics && !('sport' in topics)")), MessageContent(data: [("c", "1")]))
        try send(.token(web.token), MessageContent(data: [("w", "1")], priority: .high))
        try send(.token(doomed.token), MessageContent(data: [("d", "1")]))

        _ = try emu.createGroup(name: "family", tokens: [offline.token, phone.token], projectIdOrNumber: p)
        try emu.refreshToken("offline", projectId: p)
        try emu.uninstall(String(doomed.id), projectId: p)
        try emu.deleteDevice(String(gone.id), projectId: p)
        try emu.addFaultRule(
            FaultRule(id: "flaky", match: FaultRule.Match(api: .v1, every: 3, count: 5), action: .error(.unavailable, retryAfterSeconds: 5))
        )
        try emu.addFaultRule(
            FaultRule(id: "slow", match: FaultRule.Match(route: "messages:send", probability: 0.5), action: .latency(millis: 20)))
        _ = emu.transportFault(FaultContext(api: .v1, route: "/v1/projects/x/messages:send"))
        try emu.sendUpstream(String(phone.id), projectId: p, data: [("up", "1")])
        let connection = try emu.ccsConnect(sender: p)
        _ = emu.ccsTake(connection.connection)
        try emu.sendUpstream(String(web.id), projectId: p, data: [("up", "2")], messageId: "upstream-2")
        try emu.requestDrain(projectId: p)
        try emu.advance(byMillis: 60_000)
        return emu
    }

    /// The same actions on any emulator built by `make`, and what they produced, as text.
    static func play(_ emu: Emulator) throws -> [String] {
        let p = DemoProject.id
        var trace: [String] = []
        let before = emu.now
        let outcome = try emu.send(SendRequest(target: .topic("news"), content: MessageContent(data: [("late", "1")]), api: .v1), from: p)
        trace.append("topic \(outcome.messageId)")
        let offline = try emu.device("offline", projectId: p)
        let toOffline = try emu.send(
            SendRequest(target: .token(offline.token), content: MessageContent(data: [("n", "2")]), api: .v1), from: p)
        trace.append("token \(toOffline.messageId) \(toOffline.canonicalToken ?? "-")")
        try emu.advance(byMillis: 601_000)
        try emu.setState("offline", projectId: p, to: .foreground)
        try emu.advance(byMillis: 7_300_000)
        let new = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: p)
        trace.append("new device \(new.id) \(new.token)")
        trace.append("random \(emu.randomInt64())")
        for e in try emu.events(EventQuery(since: before, limit: 100_000)) {
            trace.append(
                "\(e.sequence) \(e.time.millis) \(e.kind) \(e.device.map(String.init) ?? "-") \(e.message?.id ?? "-") \(e.detail ?? "-")")
        }
        for info in try emu.devices(projectId: p).page {
            let inbox = try emu.inbox(String(info.id), projectId: p).1
            trace.append(
                "inbox \(info.id) "
                    + inbox.map { "\($0.kind) \($0.message?.id ?? "-") \($0.time.millis) \($0.handling)" }.joined(separator: ","))
        }
        return trace
    }

    /// Every file of a snapshot directory, by name.
    static func files(_ directory: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return out
    }
}
