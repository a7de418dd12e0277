// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// The caps on projects, devices and fault rules hold for an import too,
/// against the snapshot's own settings line; and that line keeps them, so a round trip does not
/// put them back to their defaults.
@Suite struct ImportCapTests {
    struct Cap: Sendable, CustomStringConvertible {
        let description: String
        let setting: String
        let value: Int
        /// Where the import stops: the first record past the cap.
        let file: String
        let line: Int
    }

    // The fixture holds 2 live projects (of 3 slots), 6 live devices (of 7) and 2 fault rules.
    static let caps: [Cap] = [
        Cap(description: "2 projects, maxProjects 1", setting: "maxProjects", value: 1, file: "projects.jsonl", line: 2),
        Cap(description: "6 devices, maxDevices 2", setting: "maxDevices", value: 2, file: "devices.jsonl", line: 3),
        Cap(description: "2 fault rules, maxFaultRules 1", setting: "maxFaultRules", value: 1, file: "world.jsonl", line: 3),
    ]

    @Test(arguments: caps)
    func snapshotPastItsOwnCapIsRefusedAndTheWorldKept(_ cap: Cap) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        try WorldFixture.make().exportSnapshot(to: scratch.sub("bad"), options: WorldFixture.options)
        var found = 0
        try CorruptSnapshotTests.editLines(scratch.sub("bad"), "world.jsonl") { lines in
            let (changed, count) = ImportRangeTests.replace(field: cap.setting, in: lines[0], with: String(cap.value))
            found = count
            lines[0] = changed
        }
        try #require(found == 1, "the settings line has no \(cap.setting)")

        let error = try ImportRangeTests.refusedAndTheWorldKept(scratch, bad: "bad")
        #expect(error?.file == cap.file)
        #expect(error?.line == cap.line)
        #expect(error?.message.contains(cap.setting) == true)
    }

    /// A project's server keys take the API's caps (16 keys of 1–256 bytes).
    @Test(arguments: [17, 1])
    func projectWithTooManyOrTooLongServerKeysIsRefused(_ count: Int) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        try WorldFixture.make().exportSnapshot(to: scratch.sub("bad"), options: WorldFixture.options)
        let key = count == 1 ? String(repeating: "k", count: 257) : "key"
        let keys = (0..<count).map { "\"\(key)-\($0)\"" }.joined(separator: ",")
        var found = 0
        try CorruptSnapshotTests.editLines(scratch.sub("bad"), "projects.jsonl") { lines in
            guard let regex = try? NSRegularExpression(pattern: "\"serverKeys\":\\[[^\\]]*\\]") else { return }
            let range = NSRange(lines[0].startIndex..., in: lines[0])
            found = regex.numberOfMatches(in: lines[0], range: range)
            lines[0] = regex.stringByReplacingMatches(
                in: lines[0], range: range, withTemplate: NSRegularExpression.escapedTemplate(for: "\"serverKeys\":[\(keys)]"))
        }
        try #require(found == 1)
        let error = try ImportRangeTests.refusedAndTheWorldKept(scratch, bad: "bad")
        #expect(error?.file == "projects.jsonl")
        #expect(error?.line == 1)
        #expect(error?.message.contains("server key") == true)
    }

    /// At the cap exactly is fine: the snapshot's settings, not the defaults, decide.
    @Test func snapshotAtItsOwnCapsImportsWithThem() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let source = try WorldFixture.make()
        try source.exportSnapshot(to: scratch.sub("at"), options: WorldFixture.options)
        try CorruptSnapshotTests.editLines(scratch.sub("at"), "world.jsonl") { lines in
            for (field, value) in [("maxProjects", 2), ("maxDevices", 6), ("maxFaultRules", 2)] {
                lines[0] = ImportRangeTests.replace(field: field, in: lines[0], with: String(value)).0
            }
        }
        let emu = Emulator()
        try emu.importSnapshot(from: scratch.sub("at"), clock: .snapshot)
        #expect(emu.settings.maxProjects == 2)
        #expect(emu.settings.maxDevices == 6)
        #expect(emu.settings.maxFaultRules == 2)
        // And the imported world is at its caps.
        #expect(throws: FCMError.self) { try emu.createProject(id: "third-project") }
        #expect(throws: FCMError.self) { try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id) }
    }

    @Test func capsSurviveARoundTrip() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        var settings = EmulatorSettings()
        settings.maxProjects = 7
        settings.maxDevices = 12_345
        settings.maxFaultRules = 3
        let source = Emulator(settings: settings, clock: .virtual(start: .virtualEpoch))
        try source.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        let emu = Emulator()
        try emu.importSnapshot(from: scratch.sub("s"), clock: .snapshot)
        #expect(emu.settings.maxProjects == 7)
        #expect(emu.settings.maxDevices == 12_345)
        #expect(emu.settings.maxFaultRules == 3)
    }

    /// A snapshot written before these settings existed keeps the defaults.
    @Test func olderSnapshotWithoutTheCapsKeepsTheDefaults() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        var settings = EmulatorSettings()
        settings.maxProjects = 7
        let source = Emulator(settings: settings, clock: .virtual(start: .virtualEpoch))
        try source.exportSnapshot(to: scratch.sub("old"), options: WorldFixture.options)
        var removed = 0
        try CorruptSnapshotTests.editLines(scratch.sub("old"), "world.jsonl") { lines in
            for field in ["maxProjects", "maxDevices", "maxFaultRules"] {
                let (changed, count) = Self.remove(field: field, from: lines[0])
                removed += count
                lines[0] = changed
            }
        }
        try #require(removed == 3)
        let emu = Emulator()
        try emu.importSnapshot(from: scratch.sub("old"), clock: .snapshot)
        let defaults = EmulatorSettings()
        #expect(emu.settings.maxProjects == defaults.maxProjects)
        #expect(emu.settings.maxDevices == defaults.maxDevices)
        #expect(emu.settings.maxFaultRules == defaults.maxFaultRules)
    }

    /// Removes `,"field":number` from a compact JSON object line.
    static func remove(field: String, from line: String) -> (String, Int) {
        guard let regex = try? NSRegularExpression(pattern: ",\"\(field)\":-?[0-9]+") else { return (line, 0) }
        let range = NSRange(line.startIndex..., in: line)
        let count = regex.numberOfMatches(in: line, range: range)
        return (regex.stringByReplacingMatches(in: line, range: range, withTemplate: ""), count)
    }
}
