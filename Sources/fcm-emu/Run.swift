// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMScenario
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FCMEmu {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay scenario files on a virtual clock and check what they expect.",
            discussion: """
                Each scenario sets up projects, devices and fault rules, then runs its steps through the same API code \
                that network clients reach (v1, legacy, IID, batch, the control API), in process and in milliseconds. \
                The exit code is 0 only when every expectation holds; a failure names the step, its YAML line, each \
                difference and the recent event log. The format is in docs/scenarios.md and \
                scenarios/scenario.schema.json.

                Examples:
                  fcm-emu run scenarios/
                  fcm-emu run my-flow.yaml --seed 7 --junit report.xml
                """
        )

        @Argument(help: "Scenario files or folders (searched for *.yaml and *.yml).", completion: .file())
        var paths: [String]

        @Option(help: "Seed for tokens, ids and random choices (overrides the scenarios' own).")
        var seed: UInt64?

        @Option(help: "Also write a JUnit XML report here.", completion: .file())
        var junit: String?

        func run() throws {
            var results: [ScenarioResult] = []
            var invalid: [ScenarioError] = []
            for path in try ScenarioFiles.paths(paths) {
                do throws(ScenarioError) {
                    let result = ScenarioRunner.run(try ScenarioFiles.load(path), seed: seed)
                    results.append(result)
                    print(ScenarioReport.line(result))
                } catch {
                    invalid.append(error)
                    print("INVALID  \(error)")
                }
            }
            print(ScenarioReport.summary(results) + (invalid.isEmpty ? "" : ", \(invalid.count) invalid"))
            if let junit { try JUnitReport.xml(results, invalid: invalid).write(toFile: junit, atomically: true, encoding: .utf8) }
            if !invalid.isEmpty || results.contains(where: { !$0.passed }) || results.isEmpty { throw ExitCode.failure }
        }
    }
}
