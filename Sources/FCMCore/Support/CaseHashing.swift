// SPDX-License-Identifier: Apache-2.0

// A String-backed enum takes `==` and `hash(into:)` from `RawRepresentable`, which compare and
// hash its raw text: every dictionary keyed by such an enum hashes a string. The enums below are
// keys on a send's path (the event index and the counters), so they compare and hash their case.

extension Event.Kind {
    public static func == (a: Self, b: Self) -> Bool { caseTag(a) == caseTag(b) }
    public func hash(into hasher: inout Hasher) { hasher.combine(caseTag(self)) }
}

extension SourceAPI {
    package static func == (a: Self, b: Self) -> Bool { caseTag(a) == caseTag(b) }
    package func hash(into hasher: inout Hasher) { hasher.combine(caseTag(self)) }
}

/// The case of an enum without payloads, as it is held in memory: one byte for up to 256 cases
/// (none for a single case), the same for the same case.
func caseTag<T>(_ value: T) -> UInt8 {
    withUnsafeBytes(of: value) { $0.first ?? 0 }
}
