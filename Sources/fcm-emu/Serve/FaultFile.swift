// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMCoreJSON
import FCMJSON
import FCMYAML
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A file of fault rules for `serve --faults`, YAML or JSON, in the control API's rule format:
///
///     faults:
///       - id: outage
///         match: {api: v1, route: "messages:send", every: 3}
///         action: {status: 503, retryAfter: 10s}
enum FaultFile {
    static func load(path: String) throws(ConfigError) -> [FaultRule] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ConfigError("cannot read \(path)") }
        let node: YAMLNode?
        do {
            node = try YAMLDocument.compose(String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigError("\(path) is not valid YAML: \(error)")
        }
        guard let node, let items = node.json["faults"]?.arrayValue else {
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
}
