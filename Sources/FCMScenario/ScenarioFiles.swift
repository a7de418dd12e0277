// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Finds and reads scenario files: files as given, folders searched for `*.yaml` / `*.yml`.
package enum ScenarioFiles {
    package static func paths(_ arguments: [String]) throws(ScenarioError) -> [String] {
        var out: [String] = []
        let files = FileManager.default
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                throw ScenarioError(file: argument, line: 0, "no such file or folder")
            }
            guard isDirectory.boolValue else {
                out.append(argument)
                continue
            }
            let found = (files.enumerator(atPath: argument)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                .sorted()
                .map { (argument.hasSuffix("/") ? argument : argument + "/") + $0 }
            out += found
        }
        return out
    }

    package static func load(_ path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(file: path, line: 0, "cannot read the file")
        }
        return try ScenarioParser.parse(String(decoding: data, as: UTF8.self), file: path)
    }
}
