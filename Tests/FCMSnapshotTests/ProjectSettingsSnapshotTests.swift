// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// A project's settings (whether its FCM API is enabled) survive a snapshot, and a snapshot
/// written before the setting existed reads as enabled.
@Suite struct ProjectSettingsSnapshotTests {
    @Test func aDisabledAPIStaysDisabledAfterImport() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let original = Emulator(settings: EmulatorSettings(), clock: .virtual(start: .virtualEpoch))
        try original.createProject(id: "off-app")
        try original.createProject(id: "on-app")
        _ = try original.setAPIEnabled(false, projectId: "off-app")
        try original.exportSnapshot(to: scratch.sub("a"), options: SnapshotOptions(emulatorVersion: "test"))
        let lines = try String(contentsOfFile: scratch.sub("a") + "/projects.jsonl", encoding: .utf8).split(separator: "\n")
        // Only the project that turned it off says so: the other lines are as they always were.
        #expect(lines.filter { $0.contains("\"apiEnabled\":false") }.count == 1)
        #expect(!lines.contains { $0.contains("\"apiEnabled\":true") })
        let copy = Emulator(settings: EmulatorSettings(), clock: .virtual(start: .virtualEpoch))
        try copy.importSnapshot(from: scratch.sub("a"), clock: .snapshot)
        #expect(try copy.project("off-app").apiEnabled == false)
        #expect(try copy.project("on-app").apiEnabled == true)
        #expect(try copy.project(DemoProject.id).apiEnabled == true)
    }
}
