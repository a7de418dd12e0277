// SPDX-License-Identifier: Apache-2.0

import FCMXMPP

/// What `fcm-emu run` prints: a line per scenario, and for a failure the step, its YAML line,
/// each difference, and the recent event log.
package enum ScenarioReport {
    package static func line(_ result: ScenarioResult) -> String {
        let time = (result.seconds * 1000).fixed(1) + " ms"
        let warnings = result.unusedFaults.map { "\n  warning: \($0)" }.joined()
        guard let failure = result.failure else {
            return "PASS  \(result.name)  (\(result.file), \(result.steps) steps, \(time))" + warnings
        }
        var out = "FAIL  \(result.name)  (\(result.file))" + warnings + "\n"
        let step = failure.step == 0 ? "set-up" : "step \(failure.step)"
        out += "  \(step) at \(result.file):\(failure.line): \(failure.action)\n"
        for difference in failure.differences { out += "    \(difference)\n" }
        if !failure.eventLog.isEmpty {
            out += "  recent events:\n"
            for event in failure.eventLog { out += "    \(event)\n" }
        }
        return out
    }

    package static func summary(_ results: [ScenarioResult]) -> String {
        let passed = results.filter(\.passed).count
        return "scenarios: \(passed) passed, \(results.count - passed) failed"
    }
}

/// JUnit XML, one test suite per file and one test case per scenario, for CI dashboards. A file
/// that could not be read or parsed is a suite of one failed case carrying the error, so a CI
/// dashboard shows it instead of a green run with one file fewer.
package enum JUnitReport {
    package static func xml(_ results: [ScenarioResult], invalid: [ScenarioError] = []) -> String {
        let byFile = Dictionary(grouping: results, by: \.file).sorted { $0.key < $1.key }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for error in invalid {
            let file = escape(error.file)
            out += "  <testsuite name=\"\(file)\" tests=\"1\" failures=\"1\" time=\"0\">\n"
            out += "    <testcase name=\"\(file)\" classname=\"\(file)\" time=\"0\">\n"
            out += "      <failure message=\"invalid scenario file: \(escape(error.description))\">"
            out += "\(escape(error.description))</failure>\n    </testcase>\n  </testsuite>\n"
        }
        for (file, cases) in byFile {
            let failures = cases.filter { !$0.passed }.count
            let time = cases.map(\.seconds).reduce(0, +)
            out += "  <testsuite name=\"\(escape(file))\" tests=\"\(cases.count)\" failures=\"\(failures)\" time=\"\(time)\">\n"
            for result in cases {
                out += "    <testcase name=\"\(escape(result.name))\" classname=\"\(escape(file))\" time=\"\(result.seconds)\""
                if let failure = result.failure {
                    let message = "step \(failure.step) (line \(failure.line)): \(failure.differences.first ?? failure.action)"
                    out +=
                        ">\n      <failure message=\"\(escape(message))\">"
                        + "\(escape(ScenarioReport.line(result)))</failure>\n    </testcase>\n"
                } else {
                    out += "/>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func escape(_ s: String) -> String { XMLEscaping.escape(s, quotes: true) }
}
