// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMYAML

/// Reads scenario YAML strictly: an unknown key or a wrong type is an error with the file, the
/// line and a hint, before anything runs.
package enum ScenarioParser {
    static let topKeys = ["name", "world", "settings", "start", "auth", "projects", "devices", "faults", "steps"]
    static let actions = [
        "send", "legacy", "request", "state", "uninstall", "refreshToken", "subscribe", "unsubscribe", "advance", "fault", "clearFaults",
        "check", "xmpp", "xmppAck", "upstream", "drain",
    ]

    package static func parse(_ text: String, file: String) throws(ScenarioError) -> Scenario {
        let root: YAMLNode?
        do {
            root = try YAMLDocument.compose(text)
        } catch {
            throw ScenarioError(file: file, line: 1, "not valid YAML: \(error)")
        }
        guard let root, let mapping = root.mapping else {
            throw ScenarioError(file: file, line: 1, "a scenario is a mapping with 'steps:'")
        }
        let defaultName = String(file.split(separator: "/").last ?? Substring(file))
        var scenario = Scenario(name: defaultName, file: file)
        let fail = { (node: YAMLNode, message: String) in ScenarioError(file: file, line: node.line, message) }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            switch key {
            case "name": scenario.name = try scalar(value, fail)
            case "start":
                guard let instant = Instant(iso8601: try scalar(value, fail)) else {
                    throw fail(value, "start must be an RFC 3339 time such as 2026-01-01T00:00:00Z")
                }
                scenario.start = instant
            case "world":
                let path = try scalar(value, fail)
                guard !path.isEmpty else { throw fail(value, "world names a snapshot directory, relative to this file") }
                let folder = file.contains("/") ? String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) : "."
                scenario.world = (path.hasPrefix("/") ? path : folder + "/" + path, value.line)
            case "auth":
                guard let mode = AuthMode(rawValue: try scalar(value, fail)) else { throw fail(value, "auth must be strict or lax") }
                scenario.authMode = mode
            case "settings":
                guard let settings = value.mapping else { throw fail(value, "settings is a mapping of setting: value") }
                for (k, v) in settings {
                    let text = try scalar(v, fail)
                    do throws(FCMError) {
                        try scenario.settings.set(k.string ?? "", text)
                    } catch {
                        let names = EmulatorSettings.keys.map(\.name).joined(separator: ", ")
                        throw fail(k, "\(k.string ?? ""): \(error.message) (settings: \(names))")
                    }
                }
            case "projects":
                for item in try list(value, fail) {
                    let project = item.json
                    try only(item, ["id", "number", "serverKeys"], fail)
                    guard let id = project["id"]?.stringValue else { throw fail(item, "a project needs an 'id'") }
                    let keys = project["serverKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    scenario.projects.append((id, project["number"].map { $0.stringValue ?? $0.encoded() }, keys))
                }
            case "devices":
                for item in try list(value, fail) {
                    try only(item, ["name", "project", "platform", "clientSdk", "appId", "token", "fid", "state", "topics", "senders"], fail)
                    var body = item.json
                    guard body["name"]?.stringValue != nil else { throw fail(item, "a device needs a 'name' to be referred to in steps") }
                    let project = body["project"]?.stringValue ?? DemoProject.id
                    body = .object((body.objectValue ?? []).filter { $0.0 != "project" })
                    scenario.devices.append((item.line, body, project))
                }
            case "faults": scenario.faults = try list(value, fail).map(\.json)
            case "steps": scenario.steps = try list(value, fail).map { (node: YAMLNode) throws(ScenarioError) -> Step in try step(node, fail) }
            default:
                throw fail(keyNode, "unknown key '\(key)'; a scenario has: \(topKeys.joined(separator: ", "))")
            }
        }
        return scenario
    }

    private static func step(_ node: YAMLNode, _ fail: (YAMLNode, String) -> ScenarioError) throws(ScenarioError) -> Step {
        guard let mapping = node.mapping else { throw fail(node, "a step is a mapping such as {send: …} or {advance: 15m}") }
        var action: (String, YAMLNode)?
        var expect: JSONValue?
        var save: [(String, String)] = []
        var times = 1
        for (k, v) in mapping {
            let key = k.string ?? ""
            switch key {
            case "expect": expect = v.json
            case "repeat":
                guard let n = Int(try scalar(v, fail)), (1...100_000).contains(n) else {
                    throw fail(v, "repeat is a count from 1 to 100000")
                }
                times = n
            case "save":
                guard let pairs = v.mapping else { throw fail(v, "save is a mapping of variable: path.in.the.answer") }
                save = try pairs.map { (pair: (key: YAMLNode, value: YAMLNode)) throws(ScenarioError) -> (String, String) in
                    (pair.key.string ?? "", try scalar(pair.value, fail))
                }
            case "note": break
            default:
                guard actions.contains(key) else {
                    throw fail(
                        k,
                        "unknown step '\(key)'; a step is one of: \(actions.joined(separator: ", "))"
                            + " (with optional expect, save, repeat, note)"
                    )
                }
                guard action == nil else { throw fail(k, "one action per step: '\(action?.0 ?? "")' and '\(key)'") }
                action = (key, v)
            }
        }
        guard let (keyword, value) = action else {
            throw fail(node, "the step has no action; use one of: \(actions.joined(separator: ", "))")
        }
        let json = value.json
        let line = node.line
        func field(_ name: String) throws(ScenarioError) -> String {
            guard let s = json[name]?.stringValue else { throw fail(value, "\(keyword) needs '\(name)'") }
            return s
        }
        let parsed: Step.Action
        switch keyword {
        case "send":
            try only(value, ["project", "message", "validateOnly", "validate_only"], fail)
            guard let message = json["message"] else { throw fail(value, "send needs 'message' (the v1 message object)") }
            var body: [(String, JSONValue)] = [("message", message)]
            if let v = json["validateOnly"] ?? json["validate_only"] { body.append(("validate_only", v)) }
            parsed = .send(project: json["project"]?.stringValue ?? DemoProject.id, body: .object(body))
        case "legacy":
            try only(value, ["body", "form", "key"], fail)
            parsed = .legacy(body: json["body"], form: json["form"]?.stringValue, key: json["key"]?.stringValue)
        case "request":
            try only(value, ["method", "path", "headers", "body"], fail)
            let headers = (json["headers"]?.objectValue ?? []).map { ($0.0, $0.1.stringValue ?? $0.1.encoded()) }
            parsed = .request(method: json["method"]?.stringValue ?? "GET", path: try field("path"), headers: headers, body: json["body"])
        case "state":
            try only(value, ["device", "to"], fail)
            parsed = .state(device: try field("device"), to: try field("to"))
        case "uninstall": parsed = .uninstall(device: try scalar(value, fail))
        case "refreshToken": parsed = .refreshToken(device: try scalar(value, fail))
        case "subscribe", "unsubscribe":
            try only(value, ["device", "topic"], fail)
            let (device, topic) = (try field("device"), try field("topic"))
            parsed = keyword == "subscribe" ? .subscribe(device: device, topic: topic) : .unsubscribe(device: device, topic: topic)
        case "advance":
            if let text = value.string {
                parsed = .advance(by: text, to: nil)
            } else {
                try only(value, ["by", "to"], fail)
                parsed = .advance(by: json["by"]?.stringValue, to: json["to"]?.stringValue)
            }
        case "fault": parsed = .fault(json)
        case "clearFaults": parsed = .clearFaults
        case "xmpp":
            try only(value, ["sender", "message"], fail)
            guard let message = json["message"], case .object = message else {
                throw fail(value, "xmpp needs 'message' (the CCS JSON: to, message_id, data…)")
            }
            parsed = .xmpp(sender: json["sender"]?.stringValue, payload: message)
        case "xmppAck": parsed = .xmppAck(messageId: try scalar(value, fail))
        case "upstream":
            try only(value, ["device", "data", "messageId"], fail)
            parsed = .upstream(device: try field("device"), data: json["data"], messageId: json["messageId"]?.stringValue)
        case "drain": parsed = .drain(project: value.string ?? DemoProject.id)
        default:
            try only(value, ["device", "inbox", "tray", "events", "stored", "state", "tokenValid", "topics", "xmpp"], fail)
            parsed = .check(json)
        }
        return Step(line: line, keyword: keyword, action: parsed, expect: expect, save: save, times: times)
    }

    private static func scalar(_ node: YAMLNode, _ fail: (YAMLNode, String) -> ScenarioError) throws(ScenarioError) -> String {
        guard let s = node.string else { throw fail(node, "expected a single value") }
        return s
    }

    private static func list(_ node: YAMLNode, _ fail: (YAMLNode, String) -> ScenarioError) throws(ScenarioError) -> [YAMLNode] {
        guard let sequence = node.sequence else { throw fail(node, "expected a list") }
        return Array(sequence)
    }

    private static func only(_ node: YAMLNode, _ allowed: Set<String>, _ fail: (YAMLNode, String) -> ScenarioError) throws(ScenarioError) {
        guard let mapping = node.mapping else { throw fail(node, "expected a mapping with: \(allowed.sorted().joined(separator: ", "))") }
        for (k, _) in mapping where !allowed.contains(k.string ?? "") {
            throw fail(k, "unknown key '\(k.string ?? "")'; expected one of: \(allowed.sorted().joined(separator: ", "))")
        }
    }
}
