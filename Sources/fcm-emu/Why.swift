// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FCMEmu {
    struct Why: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Why didn't it arrive? Print what became of the last messages meant for one device.",
            discussion: """
                Asks a running emulator for the device's outcomes (GET …/devices/{device}/outcomes): each device \
                keeps its last 16 (accepted, held, delivered, collapsed, evicted, expired, discarded, and refused \
                requests that named its token or FID), which the event log's eviction does not erase. Prints the \
                device, its state and how many messages it holds, the story (the newest outcome in one sentence), \
                then the outcomes, newest first: time, kind, message id, summary.

                DEVICE is a device id, name, registration token or Firebase installation ID of --project. The \
                emulator is --emulator (an http:// address or the ready file of `serve --ready-file`), else \
                $FCM_EMU_URL, else http://127.0.0.1:9092. Exit status: 0 found, 1 no such device (or no emulator).

                Examples:
                  fcm-emu why 3
                  fcm-emu why "$TOKEN" --project my-app --emulator /tmp/fcm.json
                """
        )

        @Argument(help: "The device: id, name, registration token or FID.")
        var device: String

        @Option(help: "The device's project (default: the demo project).")
        var project = DemoProject.id

        @Option(
            name: [.customLong("emulator"), .customLong("control")],
            help: ArgumentHelp("The emulator's HTTP address, or the ready file its `serve --ready-file` wrote.", valueName: "url|ready-file"))
        var emulator: String?

        func run() async throws {
            let attached = try await AttachedEmulator.connect(FCMEmu.Health.defaultEmulator(emulator))
            let answer = try await attached.client.get(WhyStory.path(device: device, project: project))
            guard answer.status == 200, let json = try? JSONParser.parse(answer.body) else {
                let said = (try? JSONParser.parse(answer.body))?["error"]?["message"]?.stringValue
                if answer.status == 404 { throw RuntimeFailure(WhyStory.unknown(device: device, project: project, answer: said)) }
                throw RuntimeFailure("\(attached.address) answered \(answer.status): \(said ?? answer.text)")
            }
            print(WhyStory.lines(json).joined(separator: "\n"))
        }
    }
}
