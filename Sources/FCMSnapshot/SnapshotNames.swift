// SPDX-License-Identifier: Apache-2.0

/// Snapshot names of the control API: the API reads and writes snapshots only by name, under one
/// root folder, never at a path a peer chose.
package enum SnapshotNames {
    /// 1–64 of `A–Z a–z 0–9 . _ -`, starting with a letter or digit (so never `.`, `..` or hidden).
    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), let first = bytes.first, isAlphanumeric(first), !name.contains("..") else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == 46 || $0 == 95 || $0 == 45 }
    }

    package static let pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"

    private static func isAlphanumeric(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }
}
