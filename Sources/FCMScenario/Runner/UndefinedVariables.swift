// SPDX-License-Identifier: Apache-2.0

/// The `${name}`s a step used that had no value. A class so that `substitute`, called from
/// non-mutating checks and closures, can note them; a runner is used on one thread.
final class UndefinedVariables {
    private var names: [String] = []

    func note(_ name: String) {
        // A step substitutes a handful of strings; the list stays as short as its typos.
        if !names.contains(name) { names.append(name) }
    }

    func take() -> [String] {
        defer { names = [] }
        return names
    }
}
