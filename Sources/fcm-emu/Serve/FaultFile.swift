// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMCoreJSON
import FCMJSON
import Foundation
import Yams

/// A file of fault rules for `serve --faults`, YAML or JSON, in the control API's rule format:
///
///     faults:
///       - id: outage
///         match: {api: v1, route: "messages:send", every: 3}
///         action: {status: 503, retryAfter: 10s}
enum FaultFile {
    static func load(path: String) throws(ConfigError) -> [FaultRule] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ConfigError("cannot read \(path)") }
        let node: Node?
        do {
            node = try Yams.compose(yaml: String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigError("\(path) is not valid YAML: \(error)")
        }
        guard let node, let items = json(node)["faults"]?.arrayValue else {
            throw ConfigError("\(path): expected a top-level 'faults:' list of rules")
        }
        var rules: [FaultRule] = []
        for (i, item) in items.enumerated() {
            do {
                rules.append(try FaultRuleCodec.decode(item, defaultId: "rule-\(i + 1)"))
            } catch {
                throw ConfigError("\(path): rule \(i + 1): \(error.message)")
            }
        }
        // The control API's own rule: an id is a path segment of DELETE …/faults/{id}.
        if let (i, rule) = rules.enumerated().first(where: { !ControlAPI.isPathSegmentId($0.element.id) }) {
            throw ConfigError("\(path): rule \(i + 1): the id '\(rule.id)' is not 1–200 bytes without '/', '.' or '..'")
        }
        return rules
    }

    /// YAML as JSON: scalars that read as numbers or booleans become them, the rest strings.
    static func json(_ node: Node) -> JSONValue {
        if let mapping = node.mapping { return .object(mapping.map { ($0.key.string ?? "", json($0.value)) }) }
        if let sequence = node.sequence { return .array(sequence.map(json)) }
        guard let scalar = node.scalar else { return .null }
        if scalar.style == .plain {
            if let n = Int64(scalar.string) { return .int(n) }
            if let d = Double(scalar.string) { return .double(d) }
            if scalar.string == "true" || scalar.string == "false" { return .bool(scalar.string == "true") }
            if scalar.string == "null" || scalar.string == "~" { return .null }
        }
        return .string(scalar.string)
    }
}
