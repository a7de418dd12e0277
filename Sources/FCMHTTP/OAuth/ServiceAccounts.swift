// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
import Foundation
import Synchronization
import _CryptoExtras

/// A service account the token endpoint trusts: its identity and public key.
struct ServiceAccount: Sendable {
    let projectId: String
    let clientEmail: String
    let keyId: String
    let publicKey: _RSA.Signing.PublicKey
    /// The `service_account` JSON minus `token_uri`, which depends on how the emulator is reached.
    let document: [(String, JSONValue)]
}

/// Generates one service account per project on first request, and keeps them, in memory and,
/// when a state directory is set, on disk, so that a key file survives a restart of the emulator.
final class ServiceAccounts: Sendable {
    private let accounts = Mutex<[String: ServiceAccount]>([:])
    private let directory: String?

    init(stateDirectory: String?) {
        directory = stateDirectory.map { $0 + "/service-accounts" }
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                let account = try? Self.load(Array(data))
            else { continue }
            accounts.withLock { $0[account.clientEmail] = account }
        }
    }

    func account(email: String) -> ServiceAccount? { accounts.withLock { $0[email] } }

    func account(keyId: String) -> ServiceAccount? { accounts.withLock { $0.values.first { $0.keyId == keyId } } }

    /// The project's service account, made on first use.
    func account(forProject projectId: String) throws -> ServiceAccount {
        let email = Self.email(projectId)
        if let existing = account(email: email) { return existing }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        var random = SystemRandomNumberGenerator()
        let keyId = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
        let clientId = String(UInt64.random(in: 100_000_000_000_000_000...999_999_999_999_999_999, using: &random))
        let document: [(String, JSONValue)] = [
            ("type", .string("service_account")),
            ("project_id", .string(projectId)),
            ("private_key_id", .string(keyId)),
            ("private_key", .string(key.pkcs8PEMRepresentation + "\n")),
            ("client_email", .string(email)),
            ("client_id", .string(clientId)),
            ("auth_uri", .string("https://accounts.google.com/o/oauth2/auth")),
            ("auth_provider_x509_cert_url", .string("https://www.googleapis.com/oauth2/v1/certs")),
            ("client_x509_cert_url", .string("https://www.googleapis.com/robot/v1/metadata/x509/\(email)")),
            ("universe_domain", .string("googleapis.com")),
        ]
        let account = ServiceAccount(projectId: projectId, clientEmail: email, keyId: keyId, publicKey: key.publicKey, document: document)
        let stored = accounts.withLock { accounts -> ServiceAccount in
            if let raced = accounts[email] { return raced }
            accounts[email] = account
            return account
        }
        if stored.keyId == keyId { keep(account) }
        return stored
    }

    /// The key file a client loads, with `token_uri` pointing at this emulator.
    func keyFile(forProject projectId: String, tokenURI: String) throws -> JSONValue {
        let account = try account(forProject: projectId)
        var document = account.document
        document.insert(("token_uri", .string(tokenURI)), at: 7)
        return .object(document)
    }

    static func email(_ projectId: String) -> String { "firebase-adminsdk-fcmemu@\(projectId).iam.gserviceaccount.com" }

    /// Every account's document (private key included), by email, as a snapshot keeps them.
    var documents: [JSONValue] {
        accounts.withLock { $0 }.sorted { $0.key < $1.key }.map { .object($0.value.document) }
    }

    /// Reads an account document from a snapshot; nil when it is not one (missing fields, a key
    /// that does not parse, an email that is not the project's emulator account).
    static func account(from document: JSONValue) -> ServiceAccount? {
        guard let account = try? load(document), account.clientEmail == email(account.projectId) else { return nil }
        return account
    }

    /// Installs an imported account in place of the project's own, in memory and in the state
    /// directory, so key files handed out by the emulator that exported it work here.
    func adopt(_ account: ServiceAccount) {
        accounts.withLock { $0[account.clientEmail] = account }
        keep(account)
    }

    /// Writes the account's key file to the state directory, readable by its owner only. Best
    /// effort: a key that cannot be kept still works for this run.
    private func keep(_ account: ServiceAccount) {
        guard let directory, Project.isValidId(account.projectId) else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: directory + "/" + account.projectId + ".json", contents: Data(JSONValue.object(account.document).encoded(.pretty).utf8),
            attributes: [.posixPermissions: 0o600])
    }

    private static func load(_ bytes: [UInt8]) throws -> ServiceAccount {
        try load(try JSONParser.parse(bytes))
    }

    private static func load(_ json: JSONValue) throws -> ServiceAccount {
        guard let pairs = json.objectValue, let projectId = json["project_id"]?.stringValue, let email = json["client_email"]?.stringValue,
            let keyId = json["private_key_id"]?.stringValue, let pem = json["private_key"]?.stringValue
        else { throw CocoaError(.fileReadCorruptFile) }
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        return ServiceAccount(
            projectId: projectId, clientEmail: email, keyId: keyId, publicKey: key.publicKey, document: pairs.filter { $0.0 != "token_uri" }
        )
    }
}
