// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization
import _CryptoExtras

/// A service account the token endpoint trusts: its identity and public key.
package struct ServiceAccount: Sendable {
    let projectId: String
    let clientEmail: String
    let keyId: String
    let publicKey: _RSA.Signing.PublicKey
    /// The `service_account` JSON minus `token_uri`, which depends on how the emulator is reached.
    let document: [(String, JSONValue)]
}

/// Which project ids may keep a service account: at most `cap` accounts are kept (`maxProjects`,
/// or the projects there are when more), and when that is passed, the accounts of projects that
/// no longer exist are forgotten, with their key files. They are kept until
/// then so that a key file survives a project's re-creation and a restart, as before.
package struct AccountRoom: Sendable {
    let cap: Int
    let projects: Set<String>

    package init(_ emulator: Emulator) {
        projects = Set(emulator.projects().map(\.id))
        cap = max(emulator.settings.maxProjects, projects.count)
    }

    init(cap: Int, projects: Set<String>) {
        self.cap = cap
        self.projects = projects
    }
}

/// One service account per project, made on first request, kept in memory and, when a state
/// directory is set, on disk, so that a key file survives a restart of the emulator. Keys are
/// made by `keys`, off the event loops (`KeyPool`).
package final class ServiceAccounts: Sendable {
    private let accounts = Mutex<[String: ServiceAccount]>([:])
    /// Held while a key file is written or removed, so the file follows the map's last word.
    private let files = Mutex<Void>(())
    private let directory: String?
    package let keys: KeyPool

    init(stateDirectory: String?, keys: KeyPool = KeyPool()) {
        self.keys = keys
        directory = stateDirectory.map { $0 + "/service-accounts" }
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasSuffix(".json") {
            guard let data = try? StateFile.read(directory + "/" + name, limit: 64 << 10, followLinks: false),
                let account = try? Self.load(data)
            else { continue }
            accounts.withLock { $0[account.clientEmail] = account }
        }
    }

    package func account(email: String) -> ServiceAccount? { accounts.withLock { $0[email] } }

    func account(keyId: String) -> ServiceAccount? { accounts.withLock { $0.values.first { $0.keyId == keyId } } }

    /// Accounts kept (at most `AccountRoom.cap`).
    var count: Int { accounts.withLock { $0.count } }

    /// The project's service account, made on this thread when there is none yet: for callers
    /// that are not an event loop (in-process requests, `exec`, tests).
    package func account(forProject projectId: String, room: AccountRoom) throws(FCMError) -> ServiceAccount {
        if let existing = account(email: Self.email(projectId)) { return existing }
        return try make(projectId, room: room).get()
    }

    /// The project's account made on a worker of `keys`: its ticket (done already when the
    /// account exists), or nil when the pool is full.
    package func request(forProject projectId: String, room: AccountRoom) -> KeyTicket? {
        keys.submit(projectId) { self.make(projectId, room: room) }
    }

    /// Makes the key, keeps the account (the first one made wins a race) and writes its file.
    private func make(_ projectId: String, room: AccountRoom) -> Result<ServiceAccount, FCMError> {
        let email = Self.email(projectId)
        if let existing = account(email: email) { return .success(existing) }
        let key: _RSA.Signing.PrivateKey
        do {
            key = try keys.makeKey()
        } catch {
            return .failure(FCMError(.internalError, "Could not make a service-account key: \(error)"))
        }
        var random = SystemRandomNumberGenerator()
        let keyId = (0..<20).map { _ in
            let byte = UInt8.random(in: 0...255, using: &random)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
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
        return .success(keep([account], room: room).first ?? account)
    }

    /// Puts `made` in the map (an account already there for the same email stays when
    /// `replacing` is false), forgets the accounts of projects that are gone when the map is past
    /// the room's cap, and brings the key files in line. Answers what the map holds for each.
    @discardableResult
    private func keep(_ made: [ServiceAccount], replacing: Bool = false, room: AccountRoom) -> [ServiceAccount] {
        let (stored, forgotten) = accounts.withLock { map -> ([ServiceAccount], [String]) in
            var stored: [ServiceAccount] = []
            for account in made {
                if !replacing, let raced = map[account.clientEmail] {
                    stored.append(raced)
                } else {
                    map[account.clientEmail] = account
                    stored.append(account)
                }
            }
            guard map.count > room.cap else { return (stored, []) }
            let gone = map.filter { !room.projects.contains($0.value.projectId) }
            for email in gone.keys { map[email] = nil }
            return (stored, gone.values.map(\.projectId))
        }
        for projectId in Set(stored.map(\.projectId) + forgotten) { syncFile(projectId) }
        return stored
    }

    /// The key file a client loads, with `token_uri` pointing at this emulator.
    package static func keyFile(_ account: ServiceAccount, tokenURI: String) -> JSONValue {
        var document = account.document
        document.insert(("token_uri", .string(tokenURI)), at: 7)
        return .object(document)
    }

    package static func email(_ projectId: String) -> String { "firebase-adminsdk-fcmemu@\(projectId).iam.gserviceaccount.com" }

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

    /// Installs imported accounts in place of the projects' own, in memory and in the state
    /// directory, so key files handed out by the emulator that exported them work here; they
    /// count toward the room's cap like any other.
    func adopt(_ imported: [ServiceAccount], room: AccountRoom) {
        keep(imported, replacing: true, room: room)
    }

    /// Writes the project's key file to the state directory, readable by its owner only, or
    /// removes it when the project keeps no account. Best effort: a key that cannot be kept still
    /// works for this run.
    private func syncFile(_ projectId: String) {
        guard let directory, Project.isValidId(projectId) else { return }
        let path = directory + "/" + projectId + ".json"
        files.withLock { _ in
            // Read under the file lock, so two threads leave the file as the map says last.
            guard let account = account(email: Self.email(projectId)) else {
                try? FileManager.default.removeItem(atPath: path)
                return
            }
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // A new file renamed into place: a link planted at the path is replaced, never
            // written through (StateFile, docs/security.md).
            try? StateFile.write(Array(JSONValue.object(account.document).encoded(.pretty).utf8), to: path, mode: 0o600)
        }
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
