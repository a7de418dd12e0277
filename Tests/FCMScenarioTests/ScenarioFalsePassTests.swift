// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMScenario
import Testing

/// What used to pass and must fail: a check on a device that does not exist, a misspelt
/// variable, and (in the JUnit report) a file that does not parse.
@Suite("Scenario runner: no false passes")
struct ScenarioFalsePassTests {
    private func run(_ yaml: String) throws -> ScenarioResult {
        ScenarioRunner.run(try ScenarioParser.parse(yaml, file: "typo.yaml"))
    }

    @Test func aCheckOnAnUnknownDeviceFailsAndSuggestsTheNearestName() throws {
        let result = try run(
            """
            devices:
              - {name: phone, platform: android}
            steps:
              - check: {device: phnoe, inbox: {count: 0}}
            """)
        let failure = try #require(result.failure)
        #expect(failure.step == 1)
        #expect(failure.line == 4)
        #expect(failure.differences == ["device: no device 'phnoe' in project demo-fcm-emu (HTTP 404); did you mean 'phone'?"])
        #expect(ScenarioReport.line(result).contains("step 1 at typo.yaml:4: check"))
    }

    /// A rule that never fired tested nothing: the run still passes, and says so.
    @Test func aFaultRuleThatNeverFiredIsReported() throws {
        let result = try run(
            """
            devices:
              - {name: phone, platform: android}
              - {name: tablet, platform: android}
            faults:
              - {id: used, match: {device: phone, count: 1}, action: {error: UNAVAILABLE}}
              - {id: idle, match: {device: tablet}, action: {status: 503}}
            steps:
              - send: {message: {token: "${phone.token}"}}
                expect: {status: 503}
            """)
        #expect(result.passed)
        #expect(result.unusedFaults.count == 1)
        #expect(result.unusedFaults.first?.hasPrefix("fault rule idle never fired") == true)
        #expect(ScenarioReport.line(result).contains("\n  warning: fault rule idle never fired"))
    }

    @Test func anEventsCheckOnAnUnknownDeviceFailsWithoutASuggestionWhenNothingIsClose() throws {
        let result = try run(
            """
            devices:
              - {name: phone, platform: android}
            steps:
              - check: {device: tablet, events: {count: 0}}
            """)
        #expect(result.failure?.differences == ["device: no device 'tablet' in project demo-fcm-emu (HTTP 404)"])
    }

    @Test func aCheckOnADeviceByItsIdStillPasses() throws {
        let result = try run(
            """
            devices:
              - {name: phone, platform: android}
            steps:
              - check: {device: "${phone.id}", inbox: {count: 0}}
            """)
        #expect(result.passed, "\(ScenarioReport.line(result))")
    }

    @Test func aMisspeltVariableFailsTheStepEvenWhenTheAnswerMatches() throws {
        // The send is refused (the token is the literal text), which the step expects: it
        // passed before, though the scenario never sent to the phone.
        let result = try run(
            """
            devices:
              - {name: pixel, platform: android}
            steps:
              - send: {message: {token: "${pixle.token}", data: {k: v}}}
                expect: {status: 400}
            """)
        let failure = try #require(result.failure)
        #expect(failure.step == 1)
        #expect(failure.differences == ["undefined variable ${pixle.token}; did you mean ${pixel.token}?"])
    }

    @Test func anUndefinedVariableInTheSetUpFailsTheSetUp() throws {
        let result = try run(
            """
            devices:
              - {name: pixel, platform: android}
            faults:
              - {id: f, match: {api: v1, device: "${nobody.id}"}, action: {status: 503}}
            steps:
              - advance: 1s
            """)
        let failure = try #require(result.failure)
        #expect(failure.step == 0)
        #expect(failure.differences.first == "undefined variable ${nobody.id}")
    }

    @Test func aSavedVariableUsedLaterIsDefined() throws {
        let result = try run(
            """
            devices:
              - {name: pixel, platform: android}
            steps:
              - request: {method: GET, path: "/emulator/v1/projects/demo-fcm-emu/devices/pixel"}
                save: {old: token}
              - send: {message: {token: "${old}", data: {k: v}}}
              - check: {device: pixel, inbox: {count: 1}}
            """)
        #expect(result.passed, "\(ScenarioReport.line(result))")
    }

    @Test func theJUnitReportCarriesAnInvalidFileAsAFailedCase() throws {
        var invalid: [ScenarioError] = []
        do throws(ScenarioError) {
            _ = try ScenarioParser.parse("steps: [{nope: 1}]", file: "bad <1>.yaml")
        } catch {
            invalid.append(error)
        }
        let xml = JUnitReport.xml([], invalid: invalid)
        #expect(xml.contains("<testsuite name=\"bad &lt;1&gt;.yaml\" tests=\"1\" failures=\"1\""))
        #expect(xml.contains("<failure message=\"invalid scenario file: bad &lt;1&gt;.yaml:1: unknown step &apos;nope&apos;"))
    }
}

@Suite("Nearest name")
struct NearestNameTests {
    @Test(arguments: [
        ("phnoe", ["phone", "tablet"], "phone"), ("pixle.token", ["pixel.token", "pixel.id"], "pixel.token"),
        ("tablet", ["phone"], nil), ("x", ["xy", "abc"], "xy"), ("ab", ["ba"], "ba"), ("", ["a"], nil),
    ] as [(String, [String], String?)])
    func suggests(_ typed: String, _ candidates: [String], _ expected: String?) {
        #expect(NearestName.suggestion(for: typed, among: candidates) == expected)
    }
}

@Suite("Scenario settings keys")
struct ScenarioSettingsKeyTests {
    @Test func aMistypedSettingGetsASuggestion() {
        #expect { try ScenarioParser.parse("settings: {dozeMaintenanceIntervl: 5m}\nsteps: []", file: "s.yaml") } throws: {
            "\($0)".contains("unknown setting 'dozeMaintenanceIntervl'; did you mean 'dozeMaintenanceInterval'?")
        }
    }
}
