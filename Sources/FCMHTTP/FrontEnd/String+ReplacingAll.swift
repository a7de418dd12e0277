// SPDX-License-Identifier: Apache-2.0

extension String {
    /// Every occurrence of `target` replaced, for escaping HTML and unfolding line ends.
    package func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
