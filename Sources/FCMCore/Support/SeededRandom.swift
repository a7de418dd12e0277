// SPDX-License-Identifier: Apache-2.0

/// SplitMix64: small, fast and reproducible, so the same seed gives the same tokens, ids and
/// random choices on every run: the same calls, clock readings and seed give the same events.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The generator's whole state; `SeededRandom(seed: state)` resumes the sequence (snapshots).
    package private(set) var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
