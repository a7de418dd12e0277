// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import FCMCore
import FCMTesting

/// What a client can make is capped (projects, devices, fault rules), each cap a
/// setting whose error names it, and a subscription changes the device's topic table in place.
@Suite struct CollectionCapTests {
    @Test func projectsStopAtMaxProjectsAndTheErrorNamesTheSetting() throws {
        let h = Harness { $0.maxProjects = 3 }  // the demo project is one
        try h.emu.createProject(id: "second")
        try h.emu.createProject(id: "third")
        let error = try #require(throws: FCMError.self) { try h.emu.createProject(id: "fourth") }
        #expect(error.reason == .limitReached)
        #expect(error.message.contains("maxProjects"))
        try h.emu.deleteProject(id: "third")
        try h.emu.createProject(id: "fourth")
    }

    @Test func devicesStopAtMaxDevicesAcrossProjects() throws {
        let h = Harness { $0.maxDevices = 2 }
        try h.emu.createProject(id: "other")
        _ = try h.device()
        _ = try h.emu.createDevice(DeviceSpec(platform: .ios, appId: "com.example"), projectId: "other")
        let error = try #require(throws: FCMError.self) { try h.device() }
        #expect(error.reason == .limitReached)
        #expect(error.message.contains("maxDevices"))
        // A batch that would pass the cap is refused before any device is made.
        try h.emu.reset()
        _ = try h.device()
        #expect(throws: FCMError.self) { try h.emu.checkRoomForDevices(2) }
        try h.emu.checkRoomForDevices(1)
    }

    @Test func faultRulesStopAtMaxFaultRulesAndAReplacementOfAnIdStillWorks() throws {
        let h = Harness { $0.maxFaultRules = 2 }
        let rule = { (id: String) in FaultRule(id: id, action: .error(.unavailable, retryAfterSeconds: nil)) }
        try h.emu.addFaultRule(rule("a"))
        try h.emu.addFaultRule(rule("b"))
        try h.emu.addFaultRule(rule("b"))  // same id: replaces, adds nothing
        let error = try #require(throws: FCMError.self) { try h.emu.addFaultRule(rule("c")) }
        #expect(error.reason == .limitReached)
        #expect(throws: FCMError.self) { try h.emu.setFaultRules([rule("x"), rule("y"), rule("z")]) }
        #expect(h.emu.faultRules().map(\.id) == ["a", "b"])
        try h.emu.setFaultRules([rule("x")])
        #expect(h.emu.faultRuleCount == 1)
    }

    @Test func theCapsAreSettingsWithRanges() throws {
        var settings = EmulatorSettings()
        try settings.set("maxProjects", "10")
        try settings.set("maxDevices", "5000000")
        try settings.set("maxFaultRules", "50")
        #expect(settings.maxProjects == 10 && settings.maxDevices == 5_000_000 && settings.maxFaultRules == 50)
        for (name, value) in [("maxProjects", "0"), ("maxDevices", "100000000"), ("maxFaultRules", "1000000"), ("maxProjects", "x")] {
            #expect(throws: FCMError.self, "\(name)=\(value)") { try settings.set(name, value) }
        }
    }

    /// The copy-on-write slip: a subscription read the device into a local copy, so the insertion
    /// copied the whole topic table (2000 names) under the lock. In place, the table's storage
    /// stays the same while it has room.
    @Test func aSubscriptionChangesTheTopicTableInPlace() throws {
        var w = World(settings: EmulatorSettings(), start: .virtualEpoch)
        _ = try w.createProject(id: "demo-cow", number: "1234", serverKeys: ["key"])
        let id = try w.createDevice(DeviceSpec(platform: .android, appId: "a", topics: (0..<20).map { "t\($0)" }), projectIndex: 0)
        func storage() -> [UInt8] {
            guard let topics = w.devices[Int(id)]?.topics else { return [] }
            return withUnsafeBytes(of: topics) { Array($0) }
        }
        let capacity = try #require(w.devices[Int(id)]?.topics.capacity)
        var added = 0
        while let count = w.devices[Int(id)]?.topics.count, count < capacity {
            let before = storage()
            #expect(w.subscribe(device: id, topic: "more\(added)") == nil)
            #expect(storage() == before, "subscription \(added) copied the topic table")
            added += 1
        }
        #expect(added > 0)
        let removed = storage()
        #expect(w.unsubscribe(device: id, topic: "t0") == nil)
        #expect(storage() == removed, "an unsubscription copied the topic table")
        #expect(w.devices[Int(id)]?.topics.count == capacity - 1)
    }
}
