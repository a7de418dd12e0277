// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import SwiftASN1
import Synchronization
import X509

/// The emulator's certificate authority: made once and kept in the state directory, so a user
/// trusts it once (`fcm-emu ca` prints where it is). Each start issues a fresh leaf certificate
/// from it for the names clients reach FCM by, so those names can be pointed at the emulator.
struct LocalCA {
    static let ipAddresses: [[UInt8]] = [[127, 0, 0, 1], [UInt8](repeating: 0, count: 15) + [1]]

    /// A CA certificate or key file is a few hundred bytes; anything far larger is not ours.
    static let maxFileBytes = 64 << 10

    /// PEM of the CA certificate, and where it is on disk for clients to trust.
    let certificatePEM: String
    let certificatePath: String
    private let certificate: Certificate
    private let key: P256.Signing.PrivateKey

    /// A start's TLS listeners (HTTPS, each XMPP port, MCS) load the CA side by side. Each made
    /// its own in a fresh state directory: one then served a leaf that the `ca.pem` on disk had
    /// not signed (Go: "ECDSA verification failure"), and the files could be one CA's
    /// certificate and another's key. One at a time, the first makes it and the rest read it.
    private static let loading = Mutex(())

    /// Loads the CA from `directory`, or makes and saves one there.
    static func loadOrCreate(in directory: String) throws -> LocalCA {
        try loading.withLock { _ in try loadOrCreateAlone(in: directory) }
    }

    private static func loadOrCreateAlone(in directory: String) throws -> LocalCA {
        let certPath = directory + "/ca.pem"
        let keyPath = directory + "/ca-key.pem"
        let files = FileManager.default
        // Read and written without following a link: one planted in the state directory could
        // make the CA's key a file of someone else's, or the key's chmod change the file it
        // points to (StateFile, docs/security.md).
        if files.fileExists(atPath: certPath), files.fileExists(atPath: keyPath) {
            let certData = try StateFile.read(certPath, limit: Self.maxFileBytes, followLinks: false)
            let keyData = try StateFile.read(keyPath, limit: Self.maxFileBytes, followLinks: false)
            let pem = String(decoding: certData, as: UTF8.self)
            let certificate = try Certificate(pemEncoded: pem)
            let key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: keyData, as: UTF8.self))
            // Every leaf it signed would be refused by the clients that trust the certificate.
            guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
                throw MismatchedFiles(certificatePath: certPath, keyPath: keyPath)
            }
            return LocalCA(certificatePEM: pem, certificatePath: certPath, certificate: certificate, key: key)
        }
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("fcm-emu")
            CommonName("fcm-emu local CA")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: .init(key)
        )
        let pem = try certificate.serializeAsPEM().pemString + "\n"
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try StateFile.write(Array(key.pemRepresentation.utf8), to: keyPath, mode: 0o600)
        try StateFile.write(Array(pem.utf8), to: certPath, mode: 0o644)
        return LocalCA(certificatePEM: pem, certificatePath: certPath, certificate: certificate, key: key)
    }

    /// A CA certificate and a key in the state directory that do not belong together.
    struct MismatchedFiles: Error, CustomStringConvertible {
        let certificatePath: String
        let keyPath: String

        var description: String {
            "the CA certificate \(certificatePath) was not made with the key \(keyPath), so no client that trusts it would "
                + "accept fcm-emu's TLS ports: remove both files, and the next start makes a new CA (trust its ca.pem again)"
        }
    }

    /// A new leaf certificate and key (PEM) for one of the emulator's TLS listeners, valid for a
    /// year: for `localhost`, the loopback addresses and `hosts`, the names it stands in for.
    func issueServerCertificate(for hosts: [String]) throws -> (certificatePEM: String, keyPEM: String) {
        let leafKey = P256.Signing.PrivateKey()
        let now = Date()
        let names =
            (["localhost"] + hosts).map { GeneralName.dnsName($0) }
            + Self.ipAddresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: certificate.subject, subject: try DistinguishedName { CommonName("fcm-emu") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: .init(leafKey.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(key.publicKey)).keyIdentifier)
            },
            issuerPrivateKey: .init(key)
        )
        return (try leaf.serializeAsPEM().pemString + "\n" + certificatePEM, leafKey.pemRepresentation)
    }
}
