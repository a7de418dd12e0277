// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// `GET …/devices/{device}/outcomes`: what became of the last messages meant for one device, and
/// of the refused requests that named it, newest first, with the newest as one sentence
/// (docs/control-api.md, "Outcomes"). Kept per device, so the event log's eviction does not erase it.
extension ControlAPI {
    func registerOutcomes(into router: inout Router) {
        router.add(
            "GET", Self.prefix + "/projects/{project}/devices/{device}/outcomes",
            handle { request, params throws(FCMError) in
                if let key = request.query.first?.0 {
                    throw FCMError(.invalidArgument, "Unknown query parameter '\(key)': outcomes takes none", field: key)
                }
                let report = try emulator.outcomes(try params.require("device"), projectId: try params.require("project"))
                return ControlJSON.response(ControlJSON.outcomes(report))
            })
    }
}

extension ControlJSON {
    /// `{device: {id, name, state, token}, stored, story, outcomes: [newest first]}`.
    static func outcomes(_ report: DeviceOutcomeReport) -> JSONValue {
        let d = report.device
        return .object([
            (
                "device",
                .object(omittingNils: [
                    ("id", .string(String(d.id))), ("name", d.name.map(JSONValue.string)), ("state", .string(d.state.rawValue)),
                    ("token", .string(d.token)),
                ])
            ),
            ("stored", .int(d.storedCount)),
            ("story", .string(report.story)),
            ("outcomes", .array(report.outcomes.map(outcome))),
        ])
    }

    static func outcome(_ o: Outcome) -> JSONValue {
        .object(omittingNils: [
            ("time", .string(o.time.iso8601)),
            ("kind", .string(o.kind.rawValue)),
            ("messageId", o.messageId.map(JSONValue.string)),
            ("reason", o.reason.map(JSONValue.string)),
            ("status", o.status.map(JSONValue.int)),
            ("code", o.code.map(JSONValue.string)),
            ("summary", .string(o.summary)),
        ])
    }
}
