// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON
import FCMTransport

/// `/emulator/v1/faults`: the fault rules in force, at most `maxFaultRules` of them.
extension ControlAPI {
    // MARK: - Faults

    func registerFaults(into router: inout Router) {
        let p = Self.prefix
        let list: @Sendable () -> HTTPResponse = {
            ControlJSON.response(.object([("faults", .array(emulator.faultRuleStates().map(Self.fault)))]))
        }
        router.add("GET", "\(p)/faults") { _, _ in list() }
        router.add(
            "GET", "\(p)/faults/{id}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(Self.fault(try emulator.faultRuleState(id: try params.require("id"))))
            })
        router.add(
            "POST", "\(p)/faults",
            handle { request, _ throws(FCMError) in
                let rule = try FaultRuleCodec.decode(try Self.json(request), defaultId: "rule-\(emulator.faultRuleCount + 1)")
                try Self.checkFaultId(rule.id)
                try emulator.addFaultRule(rule)
                return ControlJSON.response(status: 201, Self.fault(FaultRuleState(rule: rule, fired: 0)))
            })
        router.add(
            "PUT", "\(p)/faults",
            handle { request, _ throws(FCMError) in
                guard let items = try Self.json(request)["faults"]?.arrayValue else {
                    throw FCMError(.invalidArgument, "The body is {\"faults\": [rules]}", field: "faults")
                }
                // Counted before any is decoded, so a body of a million rules costs nothing more.
                try FCMError.checkFaultRuleCount(items.count, cap: emulator.settings.maxFaultRules)
                var rules: [FaultRule] = []
                for (i, item) in items.enumerated() {
                    let rule = try FaultRuleCodec.decode(item, defaultId: "rule-\(i + 1)")
                    try Self.checkFaultId(rule.id)
                    rules.append(rule)
                }
                try emulator.setFaultRules(rules)
                return list()
            })
        router.add(
            "DELETE", "\(p)/faults",
            handle { _, _ throws(FCMError) in
                try emulator.setFaultRules([])
                return list()
            })
        router.add(
            "DELETE", "\(p)/faults/{id}",
            handle { _, params throws(FCMError) in
                try emulator.removeFaultRule(id: try params.require("id"))
                return list()
            })
    }

    /// A rule as its author posted it, with its id and how often it has fired.
    static func fault(_ state: FaultRuleState) -> JSONValue {
        guard case .object(let pairs) = FaultRuleCodec.encode(state.rule) else { return FaultRuleCodec.encode(state.rule) }
        return .object(pairs + [("fired", .int(state.fired))])
    }

    /// A rule's id is a path segment (`DELETE …/faults/{id}`): empty, `.` and `..` cannot be one,
    /// since URL parsers drop or fold them (RFC 3986 §5.2.4; WHATWG URL "single-dot segment"),
    /// which made the dashboard's removal of rule `.` the removal of every rule.
    static func checkFaultId(_ id: String) throws(FCMError) {
        guard isPathSegmentId(id) else {
            throw FCMError(.invalidArgument, "A fault rule id is 1–200 bytes, not '.' or '..', and has no '/'", field: "id")
        }
    }

    public static func isPathSegmentId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 200 && id != "." && id != ".." && !id.contains("/")
    }
}
