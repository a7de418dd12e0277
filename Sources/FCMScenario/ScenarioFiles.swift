// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds and reads scenario files: files as given, folders searched for `*.yaml` / `*.yml`.
package enum ScenarioFiles {
    package static func paths(_ arguments: [String]) throws(ScenarioError) -> [String] {
        var out: [String] = []
        let files = FileManager.default
        for argument in arguments {
            var info = stat()
            guard stat(argument, &info) == 0 else {
                throw ScenarioError(file: argument, line: 0, "no such file or folder")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                out.append(argument)
                continue
            }
            let found = ((try? files.subpathsOfDirectory(atPath: argument)) ?? [])
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
