// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMScenario
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// `world: snapshot-dir`: a scenario starts from a snapshot, found relative to the scenario file.
@Suite struct ScenarioWorldTests {
    @Test func aScenarioStartsFromASnapshot() throws {
        let scratch = try ScratchDirectory("scenario-world")
        defer { scratch.cleanup() }
        let folder = scratch.path
        let emulator = Emulator()
        let pixel = try emulator.createDevice(
            DeviceSpec(platform: .android, appId: "com.example.app", name: "pixel", state: .offline), projectId: DemoProject.id)
        for n in 1...2 {
            _ = try emulator.send(
                SendRequest(target: .token(pixel.token), content: MessageContent(data: [("n", String(n))]), api: .v1), from: DemoProject.id)
        }
        try emulator.exportSnapshot(to: folder + "/snap", options: SnapshotOptions(emulatorVersion: "test"))
        let yaml = """
            world: snap
            steps:
              - check: {device: pixel, stored: 2, inbox: {count: 0}}
              - state: {device: pixel, to: foreground}
              - check: {device: pixel, stored: 0, inbox: {count: 2, items: [{payload.data.n: "1"}, {payload.data.n: "2"}]}}
            """
        try yaml.write(toFile: folder + "/from-snapshot.yaml", atomically: true, encoding: .utf8)
        let result = ScenarioRunner.run(try ScenarioFiles.load(folder + "/from-snapshot.yaml"))
        #expect(result.passed, "\(ScenarioReport.line(result))")
    }

    @Test func aMissingSnapshotFailsAtItsLine() throws {
        let scenario = try ScenarioParser.parse("name: x\nworld: no-such-snapshot\nsteps: []\n", file: "/tmp/x.yaml")
        let result = ScenarioRunner.run(scenario)
        #expect(!result.passed)
        #expect(result.failure?.line == 2)
        #expect(result.failure?.differences.first?.contains("manifest.json") == true)
    }
}
