// SPDX-License-Identifier: Apache-2.0

/// `refused` and `faultInjected` events: what was asked, of which project, and why it went wrong,
/// so "why didn't my push arrive?" has an answer in the event log.
extension World {
    /// A refusal as an event, its texts cut to `Refusal.maxTextBytes` (the log's byte budget
    /// counts what is kept, so a flood of refusals costs no more than the log's caps).
    mutating func logRefusal(_ refusal: Refusal) {
        let call = EventCall(
            project: refusal.project.map(projectIdOrSelf), api: refusal.api, status: refusal.status,
            code: Refusal.truncated(refusal.code, maxBytes: 128), target: refusal.target.map { Refusal.truncated($0) })
        let detail = Refusal.truncated(refusal.detail)
        log(.refused, detail: detail, call: call)
        noteRefusal(call, detail: detail)
    }

    /// `rule r1: status 503, retryAfter 10s`, for the project the call named.
    mutating func logFaultInjected(_ rule: FaultRule, context: FaultContext?) {
        let project = context.flatMap { c in c.projects.first { knownProjectIndex($0) != nil } ?? c.projects.first }
        let call = context.map { c in
            EventCall(project: project.map(projectIdOrSelf), api: c.api.rawValue, target: c.tokens.first.map { Refusal.truncated($0) })
        }
        log(.faultInjected, detail: Refusal.truncated("rule \(rule.id): \(rule.summary)"), call: call)
    }

    /// The id of the project a request named by id or number; what it named when no project has it.
    private func projectIdOrSelf(_ reference: String) -> String {
        knownProjectIndex(reference).flatMap { projects[Int($0)]?.project.id } ?? reference
    }

    private func knownProjectIndex(_ reference: String) -> Int32? {
        projectIndexById[reference] ?? projectIndexByNumber[reference]
    }
}

extension Emulator {
    /// Records requests a front refused (`refused` events), in the order given.
    package func recordRefusals(_ refusals: [Refusal]) {
        guard !refusals.isEmpty else { return }
        withWorld { w in
            for refusal in refusals { w.logRefusal(refusal) }
        }
    }
}
