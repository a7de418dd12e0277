// SPDX-License-Identifier: Apache-2.0

/// The TLS material on disk, for the CLI.
public enum TLSFiles {
    /// The CA certificate's path in `stateDirectory`, making the CA if there is none yet.
    public static func caCertificatePath(stateDirectory: String) throws -> String {
        try LocalCA.loadOrCreate(in: stateDirectory).certificatePath
    }
}
