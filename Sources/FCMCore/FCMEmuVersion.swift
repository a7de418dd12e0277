// SPDX-License-Identifier: Apache-2.0

/// The version printed by `fcm-emu version` and `--version` and served in `info`: the one place it
/// is defined. scripts/release names the tarball and the Python wheel after it.
public enum FCMEmuVersion {
    public static let current = "0.1.0"
}
