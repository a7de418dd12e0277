// SPDX-License-Identifier: Apache-2.0

import FCMScenario
import Testing

@Suite("Scenario runner")
struct ScenarioRunnerTests {
    private func run(_ yaml: String) throws -> ScenarioResult {
        ScenarioRunner.run(try ScenarioParser.parse(yaml, file: "test.yaml"))
    }

    @Test func aPassingScenario() throws {
        let result = try run(
            """
            devices:
              - {name: pixel, platform: android, state: offline}
            steps:
              - send: {message: {token: "${pixel.token}", data: {k: v}}}
                save: {id: name}
              - advance: 10m
              - state: {device: pixel, to: foreground}
              - check: {device: pixel, inbox: {count: 1, last: {payload.data.k: v}}}
            """)
        #expect(result.passed, "\(ScenarioReport.line(result))")
        #expect(result.steps == 4)
    }

    @Test func aWrongExpectationNamesTheStepTheLineAndTheDifference() throws {
        let result = try run(
            """
            name: wrong on purpose
            devices:
              - {name: pixel, platform: android}
            steps:
              - send: {message: {token: "${pixel.token}", data: {k: v}}}
              - check:
                  device: pixel
                  inbox: {count: 2, last: {payload.data.k: w}}
            """)
        let failure = try #require(result.failure)
        #expect(failure.step == 2)
        #expect(failure.line == 6)
        #expect(failure.differences == ["inbox.count: expected 2, got 1", "inbox.last.payload.data.k: expected \"w\", got \"v\""])
        let report = ScenarioReport.line(result)
        #expect(report.contains("FAIL  wrong on purpose"))
        #expect(report.contains("step 2 at test.yaml:6: check"))
        #expect(report.contains("delivered"))
        #expect(JUnitReport.xml([result]).contains("<failure message=\"step 2 (line 6): inbox.count: expected 2, got 1\""))
    }

    @Test func anUnexpectedStatusFailsTheStep() throws {
        let result = try run(
            """
            devices:
              - {name: phone, platform: ios}
            steps:
              - state: {device: phone, to: doze}
            """)
        #expect(result.failure?.differences.first?.hasPrefix("status: expected 2xx, got 400") == true)
    }

    @Test(arguments: [
        ("steps:\n  - sned: {}\n", 2, "unknown step 'sned'"),
        ("stepz: []\n", 1, "unknown key 'stepz'"),
        ("steps:\n  - send: {mesage: {}}\n", 2, "unknown key 'mesage'"),
        ("settings: {dozeMaintenanceInterval: soon}\nsteps: []\n", 1, "expected a duration"),
        ("steps:\n  - advance: 1m\n    state: {device: a, to: offline}\n", 3, "one action per step"),
        ("steps:\n  - send: {message: {}}\n    repeat: 0\n", 3, "repeat is a count"),
        ("devices:\n  - {platform: android}\nsteps: []\n", 2, "needs a 'name'"),
    ])
    func invalidScenariosAreRefusedWithTheLine(yaml: String, line: Int, message: String) {
        do {
            _ = try ScenarioParser.parse(yaml, file: "bad.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func repeatedStepsSeeTheirIteration() throws {
        let result = try run(
            """
            devices:
              - {name: pixel, platform: android}
            steps:
              - send: {message: {token: "${pixel.token}", data: {n: "${i}"}}}
                repeat: 3
              - check: {device: pixel, inbox: {items: [{payload.data.n: "1"}, {payload.data.n: "2"}, {payload.data.n: "3"}]}}
            """)
        #expect(result.passed, "\(ScenarioReport.line(result))")
    }

    @Test func theSameSeedGivesTheSameRun() throws {
        let yaml = """
            settings: {seed: 5}
            devices:
              - {name: pixel, platform: android}
            steps:
              - send: {message: {token: "${pixel.token}"}}
                expect: {body: {name: "projects/demo-fcm-emu/messages/0:1767225600000001%9f388bbe9f388bbe"}}
            """
        #expect(try run(yaml).passed)
    }
}

@Suite("Scenario runner: faults on the clock")
struct ScenarioLatencyTests {
    @Test func injectedLatencyAdvancesTheVirtualClock() throws {
        let result = ScenarioRunner.run(
            try ScenarioParser.parse(
                """
                faults:
                  - {id: slow, match: {api: v1}, action: {latency: 2s}}
                steps:
                  - send: {message: {topic: news}}
                  - request: {method: GET, path: /emulator/v1/clock}
                    expect: {body: {now: "2026-01-01T00:00:02.000Z"}}
                """, file: "latency.yaml"))
        #expect(result.passed, "\(ScenarioReport.line(result))")
    }
}

@Suite("Scenario runner: XMPP steps")
struct ScenarioXMPPTests {
    @Test func aWrongXMPPExpectationIsReported() throws {
        let result = ScenarioRunner.run(
            try ScenarioParser.parse(
                """
                devices:
                  - {name: pixel, platform: android}
                steps:
                  - xmpp: {message: {to: "${pixel.token}", message_id: m-1}}
                    expect: {error: DEVICE_UNREGISTERED}
                """, file: "xmpp.yaml"))
        let failure = try #require(result.failure)
        #expect(failure.line == 4)
        #expect(failure.differences.first?.hasPrefix("error: expected DEVICE_UNREGISTERED, got {\"from\"") == true)
    }
}
