// SPDX-License-Identifier: Apache-2.0

extension StringProtocol {
    /// The text without the characters `drop` accepts at either end; `trimmingCharacters(in:)`
    /// is full Foundation's (docs/development.md, "The binary").
    package func trimming(_ drop: (Character) -> Bool = \.isWhitespace) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}
