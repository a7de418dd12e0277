// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// A step's `expect` held to its answer, and `check` held to the world (docs/scenarios.md,
/// "Expectations, variables and reports").
extension ScenarioRunner {
    /// Compares an answer with the step's `expect` (by default: any 2xx), then saves variables.
    mutating func verify(_ response: HTTPResponse, _ step: Step) -> [String] {
        let body = (try? JSONParser.parse(response.body)) ?? .string(response.bodyText)
        var out: [String] = []
        let expect = step.expect.map(substitute)
        // A transport fault's fate of the connection: `kept`, `reset`, `goaway graceful`, `goaway ENHANCE_YOUR_CALM`,
        // `rstStream REFUSED_STREAM` (the call's HTTP/2 stream), `held` (never answered).
        let connection = Self.connection(response)
        if let expected = expect?["connection"]?.stringValue, expected != connection {
            out.append("connection: expected \(expected), got \(connection)")
        }
        if connection != "kept", !response.outcome.writesAnswer, expect?["connection"] != nil, expect?["status"] == nil {
            // No answer was written, so there is no status to hold to the 2xx default.
        } else if let status = expect?["status"] {
            if status.int64Value != Int64(response.status) {
                out.append("status: expected \(status.encoded()), got \(response.status) \(Matcher.describe(body))")
            }
        } else if !(200..<300).contains(response.status) {
            out.append("status: expected 2xx, got \(response.status) \(Matcher.describe(body))")
        }
        if let expectedBody = expect?["body"] {
            if case .string(let text) = expectedBody, case .string = body {
                if text != response.bodyText {
                    out.append("body: expected \(JSONValue.string(text).encoded()), got \(JSONValue.string(response.bodyText).encoded())")
                }
            } else {
                out += Matcher.differences(expected: expectedBody, actual: body, path: "body")
            }
        }
        if let error = expect?["error"]?.stringValue, !Self.errorNames(body, response.bodyText).contains(error) {
            out.append("error: expected \(error), got \(Matcher.describe(body))")
        }
        for (name, value) in expect?["headers"]?.objectValue ?? [] where response.header(name) != value.stringValue {
            out.append("headers.\(name): expected \(value.encoded()), got \(response.header(name) ?? "nothing")")
        }
        out += save(step.save, from: body)
        return out
    }

    static func connection(_ response: HTTPResponse) -> String {
        switch response.outcome {
        case .goAway(let goAway): "goaway \(FaultRule.goAwayName(goAway.errorCode))"
        case .resetStream(let code): "rstStream \(FaultRule.http2ErrorName(code))"
        case .hold: "held"
        case .reset: "reset"
        case .write, .writeThenClose, .delay, .live: "kept"
        }
    }

    /// Keeps fields of an answer as variables for later steps.
    mutating func save(_ fields: [(String, String)], from answer: JSONValue?) -> [String] {
        var missing: [String] = []
        for (name, path) in fields {
            guard let value = Matcher.lookup(answer, path) else {
                missing.append("save \(name): the answer has no \(path)")
                continue
            }
            variables[name] = value.stringValue ?? value.encoded()
        }
        return missing
    }

    /// Every error name an answer carries: v1 FcmError code and status, legacy results, IID errors,
    /// plain-text `Error=` lines.
    static func errorNames(_ body: JSONValue, _ text: String) -> [String] {
        var names: [String] = []
        if let error = body["error"] {
            names += [error.stringValue, error["status"]?.stringValue].compactMap { $0 }
            names += (error["details"]?.arrayValue ?? []).compactMap { $0["errorCode"]?.stringValue }
        }
        names += (body["results"]?.arrayValue ?? []).compactMap { $0["error"]?.stringValue }
        if text.hasPrefix("Error=") { names.append(String(text.dropFirst(6).prefix { $0 != "\n" })) }
        return names
    }

    func check(_ expected: JSONValue) -> [String] {
        guard let device = expected["device"]?.stringValue else {
            guard let events = expected["events"] else { return ["check: name a device, or check events"] }
            return checkEvents(events, path: "/events")
        }
        var out: [String] = []
        let project = variables["\(device).project"] ?? DemoProject.id
        let base = "/projects/\(project)/devices/\(variables["\(device).id"] ?? device)"
        let found = control("GET", base, nil)
        // A device that does not exist has an empty inbox and no events: without this, every
        // check on a misspelt name would pass.
        guard found.status == 200 else {
            return [
                "device: no device '\(device)' in project \(project) (HTTP \(found.status))"
                    + NearestName.hint(for: device, among: deviceNames)
            ]
        }
        let info = try? JSONParser.parse(found.body)
        for (key, info_key) in [("state", "state"), ("tokenValid", "tokenValid"), ("stored", "storedCount"), ("topics", "topics")] {
            if let value = expected[key] { out += Matcher.differences(expected: value, actual: info?[info_key], path: key) }
        }
        // The inbox is what the app received; the tray what the user sees.
        for (name, listKey) in [("inbox", "deliveries"), ("tray", "notifications")] {
            guard let list = expected[name] else { continue }
            let answer = try? JSONParser.parse(control("GET", base + "/" + name, nil).body)
            let entries = answer?[listKey] ?? .array([])
            let items = entries.arrayValue ?? []
            if let count = list["count"] { out += Matcher.differences(expected: count, actual: .int(items.count), path: name + ".count") }
            if let expectedItems = list["items"] {
                out += Matcher.differences(expected: expectedItems, actual: entries, path: name + ".items")
            }
            if let first = list["first"] { out += Matcher.differences(expected: first, actual: items.first, path: name + ".first") }
            if let last = list["last"] { out += Matcher.differences(expected: last, actual: items.last, path: name + ".last") }
            if let unshown = list["unshownHighPriority"] {
                out += Matcher.differences(expected: unshown, actual: answer?["unshownHighPriority"], path: name + ".unshownHighPriority")
            }
        }
        if let events = expected["events"] { out += checkEvents(events, path: base + "/events") }
        return out
    }

    /// `events: {kind: expired, count: 1, last: {detail: …}}` against the event log.
    func checkEvents(_ expected: JSONValue, path: String) -> [String] {
        let query = ["kind", "topic", "message"].compactMap { key in expected[key]?.stringValue.map { "\(key)=\($0)" } }.joined(
            separator: "&")
        let events =
            (try? JSONParser.parse(control("GET", path + (query.isEmpty ? "" : "?" + query), nil).body))?["events"]?.arrayValue ?? []
        var out: [String] = []
        if let count = expected["count"] { out += Matcher.differences(expected: count, actual: .int(events.count), path: "events.count") }
        if let last = expected["last"] { out += Matcher.differences(expected: last, actual: events.last, path: "events.last") }
        if let items = expected["items"] { out += Matcher.differences(expected: items, actual: .array(events), path: "events.items") }
        return out
    }
}
