// SPDX-License-Identifier: Apache-2.0

import NIOSSL

/// The TLS material on disk, for the listeners and the CLI.
public enum TLSFiles {
    /// The CA certificate's path in `stateDirectory`, making the CA if there is none yet.
    public static func caCertificatePath(stateDirectory: String) throws -> String {
        try LocalCA.loadOrCreate(in: stateDirectory).certificatePath
    }

    /// A server context with a fresh leaf certificate from the CA in `directory` for `hosts`
    /// (and `localhost`), offering the ALPN protocols given (none for XMPP, which negotiates
    /// nothing).
    public static func serverContext(
        directory: String, hosts: [String], alpn: [String]
    ) throws -> (context: NIOSSLContext, caPath: String) {
        let ca = try LocalCA.loadOrCreate(in: directory)
        let (chain, key) = try ca.issueServerCertificate(for: hosts)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(chain.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem))
        )
        tls.applicationProtocols = alpn
        return (try NIOSSLContext(configuration: tls), ca.certificatePath)
    }
}
