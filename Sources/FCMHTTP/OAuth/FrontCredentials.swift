// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMSnapshot
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The keys the HTTP fronts issue and check: each project's service account and the access-token
/// signing key. One value per emulator, shared by its routes and by `serve`'s snapshots, which
/// carry these keys (`credentials.jsonl`) so that key files and cached access tokens keep working
/// after an import on another machine.
public final class FrontCredentials: Sendable {
    package let accounts: ServiceAccounts
    package let grants: AccessGrants

    /// Keys are kept in `stateDirectory` when there is one (they survive a restart), else in memory.
    public convenience init(
        stateDirectory: String?, wallSeconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.init(stateDirectory: stateDirectory, wallSeconds: wallSeconds, keys: KeyPool())
    }

    /// With a pool of one's own: tests bound it tighter or hold its keys.
    init(stateDirectory: String?, wallSeconds: @escaping @Sendable () -> Int64, keys: KeyPool) {
        accounts = ServiceAccounts(stateDirectory: stateDirectory, keys: keys)
        grants = AccessGrants(stateDirectory: stateDirectory, wallSeconds: wallSeconds)
    }

    /// Writes the world and these keys to `directory` (`Emulator.exportSnapshot`).
    @discardableResult
    package func exportSnapshot(of emulator: Emulator, to directory: String, options: SnapshotOptions) throws -> SnapshotManifest {
        var options = options
        options.credentials = snapshotLines
        return try emulator.exportSnapshot(to: directory, options: options)
    }

    /// Replaces the world with the snapshot's and adopts its keys. The keys are read and checked
    /// first, then the world: a snapshot refused anywhere changes neither.
    @discardableResult
    package func importSnapshot(
        into emulator: Emulator, from directory: String, clock: SnapshotClock
    ) throws(SnapshotError)
        -> SnapshotManifest
    {
        let keys = try Self.parse(try SnapshotReader.credentials(directory: directory))
        let manifest = try emulator.importSnapshot(from: directory, clock: clock)
        accounts.adopt(keys.accounts, room: AccountRoom(emulator))
        if let key = keys.tokenKey { grants.adopt(key) }
        return manifest
    }

    /// `{"type":"accessTokenKey","key":…}` then one `{"type":"serviceAccount","document":…}` per project.
    var snapshotLines: [JSONValue] {
        [.object([("type", .string("accessTokenKey")), ("key", .string(Base64URLCodec.encode(grants.signingKey)))])]
            + accounts.documents.map { .object([("type", .string("serviceAccount")), ("document", $0)]) }
    }

    private static func parse(_ lines: [JSONValue]) throws(SnapshotError) -> (accounts: [ServiceAccount], tokenKey: [UInt8]?) {
        let file = "credentials.jsonl"
        var accounts: [ServiceAccount] = []
        var tokenKey: [UInt8]?
        for (index, line) in lines.enumerated() {
            guard let pairs = line.objectValue, pairs.count == 2 else {
                throw SnapshotError(file: file, line: index + 1, "a line is {\"type\": …} with one more field")
            }
            switch line["type"]?.stringValue {
            case "accessTokenKey":
                guard tokenKey == nil, let text = line["key"]?.stringValue, let key = Base64URLCodec.decode(Substring(text)), key.count == 32
                else {
                    throw SnapshotError(file: file, line: index + 1, "the access-token key is 32 bytes in base64url, once")
                }
                tokenKey = key
            case "serviceAccount":
                // One account per project, so never more than the most projects a world may hold:
                // refused before another private key is parsed.
                guard accounts.count < EmulatorSettings.maxProjectsRange.upperBound else {
                    throw SnapshotError(
                        file: file, line: index + 1,
                        "more service accounts than a world may hold projects (\(EmulatorSettings.maxProjectsRange.upperBound))")
                }
                guard let document = line["document"], let account = ServiceAccounts.account(from: document) else {
                    throw SnapshotError(file: file, line: index + 1, "not a service account of this emulator (fields or private key)")
                }
                accounts.append(account)
            default:
                throw SnapshotError(file: file, line: index + 1, "unknown credential type; refusing to guess what it means")
            }
        }
        return (accounts, tokenKey)
    }
}
