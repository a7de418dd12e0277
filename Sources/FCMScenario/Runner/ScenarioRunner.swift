// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMJSON
import FCMServer
import FCMSnapshot
import FCMTransport

/// Replays a scenario on a virtual clock. Every step goes through the same route table that
/// network clients hit (parsing, validation, rendering), in process: no sockets, no sleeps.
/// Checks read the world through the control API, so they see what a test harness would.
package struct ScenarioRunner {
    private let scenario: Scenario
    private let responder: HTTPResponder
    private let emulator: Emulator
    var variables: [String: String] = [:]
    /// The scenario's app-server XMPP connection, once a step uses it.
    private var xmppClient: ScenarioXMPP?
    /// The devices the scenario created, by name, for "did you mean" in a failure.
    var deviceNames: [String] = []
    /// `${name}`s met that have no value: a typo must fail the step, not send the text as is.
    private let undefined = UndefinedVariables()

    package static func run(_ scenario: Scenario, seed: UInt64? = nil) -> ScenarioResult {
        let clock = ContinuousClock()
        let start = clock.now
        var settings = scenario.settings
        if let seed { settings.seed = seed }
        var runner = ScenarioRunner(scenario: scenario, settings: settings)
        let failure = runner.execute()
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var result = ScenarioResult(name: scenario.name, file: scenario.file, steps: scenario.steps.count, seconds: seconds, failure: failure)
        result.unusedFaults = runner.emulator.faultRuleStates().filter { $0.fired == 0 }.map {
            "fault rule \($0.rule.id) never fired (\($0.rule.summary))"
        }
        return result
    }

    private init(scenario: Scenario, settings: EmulatorSettings) {
        self.scenario = scenario
        emulator = Emulator(settings: settings, clock: .virtual(start: scenario.start ?? .virtualEpoch))
        responder = EmulatorRoutes.responder(
            emulator: emulator, maxBodyBytes: 8 << 20, fronts: FrontConfiguration(authMode: scenario.authMode, stateDirectory: nil)
        ) { .null }
    }

    private mutating func execute() -> ScenarioResult.Failure? {
        if let failure = setUp() { return failure }
        for (index, step) in scenario.steps.enumerated() {
            for i in 1...step.times {
                variables["i"] = String(i)
                var differences = perform(step)
                if differences.isEmpty { xmppClient?.pump() }  // receipts, upstream and drains reach the connection
                if case .check(let expected) = step.action, let xmpp = substitute(expected)["xmpp"] { differences += checkXMPP(xmpp) }
                differences = undefinedVariables() + differences
                if !differences.isEmpty {
                    let action = step.times > 1 ? "\(step.keyword) (repeat \(i) of \(step.times))" : step.keyword
                    return ScenarioResult.Failure(
                        step: index + 1, line: step.line, action: action, differences: differences, eventLog: eventLog(step))
                }
            }
        }
        return nil
    }

    // MARK: - Set-up

    private mutating func setUp() -> ScenarioResult.Failure? {
        func failed(_ line: Int, _ what: String, _ response: HTTPResponse) -> ScenarioResult.Failure {
            ScenarioResult.Failure(
                step: 0, line: line, action: what, differences: undefinedVariables() + ["HTTP \(response.status): \(response.bodyText)"],
                eventLog: [])
        }
        if let world = scenario.world {
            // The snapshot is the starting world, clock included; projects and devices listed
            // in the scenario are added to it.
            do throws(SnapshotError) {
                try emulator.importSnapshot(from: world.path, clock: .snapshot)
            } catch {
                return ScenarioResult.Failure(step: 0, line: world.line, action: "world", differences: [error.description], eventLog: [])
            }
        }
        for project in scenario.projects {
            let body = JSONValue.object(omittingNils: [
                ("id", .string(project.id)), ("number", project.number.map(JSONValue.string)),
                ("serverKeys", project.serverKeys.isEmpty ? nil : .array(project.serverKeys.map(JSONValue.string))),
            ])
            let response = control("POST", "/projects", body)
            guard response.status == 201 else { return failed(1, "projects", response) }
        }
        for project in emulator.projects() {
            variables["\(project.id).number"] = project.number
            variables["\(project.id).serverKey"] = project.serverKeys.first ?? ""
        }
        for device in scenario.devices {
            let response = control("POST", "/projects/\(device.project)/devices", substitute(device.body))
            guard response.status == 201, let made = try? JSONParser.parse(response.body), let name = made["name"]?.stringValue else {
                return failed(device.line, "devices", response)
            }
            for field in ["token", "fid", "id"] { variables["\(name).\(field)"] = made[field]?.stringValue }
            variables["\(name).project"] = device.project
            deviceNames.append(name)
        }
        for rule in scenario.faults {
            let response = control("POST", "/faults", substitute(rule))
            guard response.status == 201 else { return failed(1, "faults", response) }
        }
        let unknown = undefinedVariables()
        guard unknown.isEmpty else {
            return ScenarioResult.Failure(step: 0, line: 1, action: "set-up", differences: unknown, eventLog: [])
        }
        return nil
    }

    // MARK: - Steps

    private mutating func perform(_ step: Step) -> [String] {
        let response: HTTPResponse
        switch step.action {
        case .send(let project, let body):
            response = call(
                "POST", "/v1/projects/\(project)/messages:send", substitute(body), headers: [("Authorization", "Bearer scenario")])
        case .legacy(let body, let form, let key):
            let serverKey = substitute(key ?? variables["\(DemoProject.id).serverKey"] ?? DemoProject.serverKey)
            if let form {
                response = raw(
                    "POST", "/fcm/send", Array(substitute(form).utf8),
                    headers: [
                        ("Authorization", "key=\(serverKey)"), ("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"),
                    ])
            } else {
                response = call("POST", "/fcm/send", substitute(body ?? .object([])), headers: [("Authorization", "key=\(serverKey)")])
            }
        case .request(let method, let path, let headers, let body):
            let bytes: [UInt8] =
                body.map { $0.stringValue.map { Array(substitute($0).utf8) } ?? Array(substitute($0).encoded().utf8) } ?? []
            response = raw(method, substitute(path), bytes, headers: headers.map { ($0.0, substitute($0.1)) })
        case .state(let device, let to):
            response = deviceCall("PATCH", device, "", .object([("state", .string(to))]))
        case .uninstall(let device): response = deviceCall("POST", device, ":uninstall", nil)
        case .refreshToken(let device):
            response = deviceCall("POST", device, ":refreshToken", nil)
            if let made = try? JSONParser.parse(response.body), let token = made["token"]?.stringValue {
                variables["\(device).token"] = token
            }
        case .subscribe(let device, let topic): response = deviceCall("PUT", device, "/topics/\(topic)", nil)
        case .unsubscribe(let device, let topic): response = deviceCall("DELETE", device, "/topics/\(topic)", nil)
        case .advance(let by, let to):
            response = control(
                "POST", "/clock:advance", .object(omittingNils: [("by", by.map(JSONValue.string)), ("to", to.map(JSONValue.string))]))
        case .fault(let rule): response = control("POST", "/faults", substitute(rule))
        case .clearFaults: response = control("DELETE", "/faults", nil)
        case .check(let expectations):
            let expected = substitute(expectations)
            guard expected["device"] != nil || expected["events"] != nil else { return [] }  // xmpp-only checks run after the pump
            return check(expected)
        case .xmpp(let sender, let payload): return xmpp(sender: sender, payload: substitute(payload), step: step)
        case .xmppAck(let messageId):
            let id = substitute(messageId)
            let to = xmppClient?.received.last { $0["message_id"]?.stringValue == id }?["from"]?.stringValue ?? "gcm.googleapis.com"
            let replies =
                xmppClient?.send(.object([("to", .string(to)), ("message_id", .string(id)), ("message_type", .string("ack"))])) ?? []
            return replies.isEmpty ? [] : ["xmppAck: the ack was refused: \(Matcher.describe(replies.first))"]
        case .upstream(let device, let data, let messageId):
            response = deviceCall(
                "POST", device, ":upstream",
                .object(omittingNils: [
                    ("data", data.map(substitute)), ("messageId", messageId.map { .string(substitute($0)) }),
                ]))
        case .drain(let project): response = control("POST", "/projects/\(project)/xmpp:drain", nil)
        }
        // An injected latency takes emulator time: the answer arrives that much later.
        if case .delay(let millis) = response.outcome, millis > 0 { _ = try? emulator.advance(byMillis: millis) }
        return verify(response, step)
    }

    // MARK: - XMPP

    /// A downstream CCS message; by default it must be acked.
    private mutating func xmpp(sender: String?, payload: JSONValue, step: Step) -> [String] {
        let sender = substitute(sender ?? DemoProject.id)
        if xmppClient?.sender != sender {
            xmppClient = ScenarioXMPP(emulator: emulator, sender: sender, laxAuth: scenario.authMode == .lax)
        }
        guard var client = xmppClient else { return ["xmpp: no connection"] }
        if !client.isLoggedIn, !client.login() { return ["xmpp: the login of sender \(sender) was refused"] }
        let reply = client.send(payload).first
        xmppClient = client
        var out: [String] = []
        let expect = step.expect.map(substitute)
        if let error = expect?["error"]?.stringValue {
            if reply?["error"]?.stringValue != error { out.append("error: expected \(error), got \(Matcher.describe(reply))") }
        } else if expect?["body"] == nil, reply?["message_type"]?.stringValue != "ack" {
            out.append("expected an ack, got \(Matcher.describe(reply))")
        }
        if let body = expect?["body"] { out += Matcher.differences(expected: body, actual: reply, path: "reply") }
        return out + save(step.save, from: reply)
    }

    /// `check: {xmpp: {received: {count, items, last}}}`: what CCS sent the scenario's connection.
    private func checkXMPP(_ expected: JSONValue) -> [String] {
        let received = xmppClient?.received ?? []
        guard let want = expected["received"] else { return [] }
        var out: [String] = []
        if let count = want["count"] {
            out += Matcher.differences(expected: count, actual: .int(received.count), path: "xmpp.received.count")
        }
        if let items = want["items"] { out += Matcher.differences(expected: items, actual: .array(received), path: "xmpp.received.items") }
        if let last = want["last"] { out += Matcher.differences(expected: last, actual: received.last, path: "xmpp.received.last") }
        return out
    }

    // MARK: - Calls

    func control(_ method: String, _ path: String, _ body: JSONValue?) -> HTTPResponse {
        call(method, ControlAPI.prefix + path, body, headers: [])
    }

    private func deviceCall(_ method: String, _ device: String, _ suffix: String, _ body: JSONValue?) -> HTTPResponse {
        let project = variables["\(device).project"] ?? DemoProject.id
        return control(method, "/projects/\(project)/devices/\(variables["\(device).id"] ?? device)\(suffix)", body)
    }

    private func call(_ method: String, _ path: String, _ body: JSONValue?, headers: [(String, String)]) -> HTTPResponse {
        raw(method, path, body.map { Array($0.encoded().utf8) } ?? [], headers: [("Content-Type", "application/json")] + headers)
    }

    private func raw(_ method: String, _ path: String, _ body: [UInt8], headers: [(String, String)]) -> HTTPResponse {
        responder.respond(HTTPRequest(method: method, target: path, headers: [("Host", "fcm-emu.scenario")] + headers, body: body))
    }

    // MARK: - Variables and the failure report

    /// Replaces `${name}` with saved values and device fields (`${pixel.token}`).
    func substitute(_ text: String) -> String {
        guard text.contains("${") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close])
            if let value = variables[name] {
                out += value
            } else {
                out += "${\(name)}"
                undefined.note(name)
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    func substitute(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(substitute(s))
        case .array(let items): return .array(items.map(substitute))
        case .object(let pairs): return .object(pairs.map { (substitute($0.0), substitute($0.1)) })
        default: return value
        }
    }

    /// The `${…}` met since the last call that had no value, as failure lines; forgets them.
    private func undefinedVariables() -> [String] {
        undefined.take().map { name in
            "undefined variable ${\(name)}" + NearestName.hint(for: name, among: variables.keys) { "${\($0)}" }
        }
    }

    /// The last events of the device a step names (or of everything), for the report.
    private func eventLog(_ step: Step) -> [String] {
        var device: String?
        switch step.action {
        case .state(let d, _), .uninstall(let d), .refreshToken(let d), .subscribe(let d, _), .unsubscribe(let d, _): device = d
        case .check(let expected): device = expected["device"]?.stringValue
        default: device = nil
        }
        let query = EventQuery(deviceId: device.flatMap { variables["\($0).id"] }.flatMap { DeviceID($0) }, limit: 15)
        return ((try? emulator.events(query)) ?? []).map { event in
            [
                event.time.iso8601, event.kind.rawValue, event.device.map { "device \($0)" }, event.message.map { "message \($0.id)" },
                event.detail,
            ]
            .compactMap { $0 }.joined(separator: "  ")
        }
    }
}
