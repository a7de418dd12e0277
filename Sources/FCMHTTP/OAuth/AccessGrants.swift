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

/// Access tokens issued by the token endpoint, bound to a project, scopes and an expiry on the
/// wall clock (docs/http-v1.md, "Access tokens"). A token carries its grant and an HMAC-SHA256 over it, made
/// with a key kept in the state directory, so a token outlives the emulator process that issued
/// it: Node and Go cache a token for up to an hour and never refresh it on a 401, so a restarted
/// `serve` must still honour it. Without a state directory the key lives in memory only.
///
/// A project's tokens can be revoked (`revoke`): those issued until then get 401 from then on, as a
/// rotated or disabled key's tokens do at Google, so an SDK's refresh path runs (docs/http-v1.md,
/// "Revoking access tokens"). Each token carries when it was issued; revocations are kept in
/// memory for a token's lifetime, after which every token they concern has expired anyway.
package final class AccessGrants: Sendable {
    package static let lifetimeSeconds: Int64 = 3600
    private static let prefix = "ya29.c."
    static let keyFileName = "access-token.key"

    package struct Grant: Sendable {
        package let token: String
        let projectId: String
        let scopes: Set<String>
        let expiresAt: Int64
        /// Wall-clock milliseconds, strictly after any revocation of the project that came before it.
        let issuedAt: Int64
    }

    /// Projects whose revocations are kept at once; past it the oldest is forgotten.
    static let maxRevocations = 4096
    /// When each project's tokens were last revoked, wall-clock milliseconds.
    private let revocations = Mutex<[String: Int64]>([:])

    /// Keys adopted from imported snapshots, at most: each is one HMAC check per unknown token.
    static let maxAdoptedKeys = 8

    /// The HMAC key's bytes (`SymmetricKey` is not Sendable; one is made per use).
    private let keyBytes: [UInt8]
    /// Keys of emulators whose snapshots were imported: their tokens stay good here.
    private let adopted = Mutex<[[UInt8]]>([])
    private let wallSeconds: @Sendable () -> Int64

    init(stateDirectory: String? = nil, wallSeconds: @escaping @Sendable () -> Int64) {
        self.wallSeconds = wallSeconds
        keyBytes = Self.loadOrCreateKey(in: stateDirectory)
    }

    /// The signing key, as a snapshot keeps it.
    var signingKey: [UInt8] { keyBytes }

    /// Honours tokens signed with `key` from now on; the oldest adopted key goes past the limit.
    func adopt(_ key: [UInt8]) {
        guard key.count == 32, key != keyBytes else { return }
        adopted.withLock { keys in
            keys.removeAll { $0 == key }
            keys.append(key)
            if keys.count > Self.maxAdoptedKeys { keys.removeFirst(keys.count - Self.maxAdoptedKeys) }
        }
    }

    private func isAuthentic(_ mac: [UInt8], _ body: [UInt8]) -> Bool {
        if HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: SymmetricKey(data: keyBytes)) { return true }
        return adopted.withLock { $0 }.contains {
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: SymmetricKey(data: $0))
        }
    }

    package func issue(projectId: String, scopes: Set<String>) -> Grant {
        let now = wallSeconds()
        let expiresAt = now + Self.lifetimeSeconds
        // A token issued in the same second as a revocation, after it, must stay good.
        let issuedAt = max(now * 1000, (revocations.withLock { $0[projectId] } ?? .min) + 1)
        var random = SystemRandomNumberGenerator()
        // The nonce keeps two grants of one second apart, as real tokens are.
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        let claims = JSONValue.object([
            ("p", .string(projectId)), ("s", .array(scopes.sorted().map(JSONValue.string))), ("e", .int(expiresAt)),
            ("i", .int(issuedAt)), ("n", .string(Base64URLCodec.encode(nonce))),
        ])
        let body = Array(claims.encoded().utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: keyBytes))
        let token = Self.prefix + Base64URLCodec.encode(body) + "." + Base64URLCodec.encode(Array(mac))
        return Grant(token: token, projectId: projectId, scopes: scopes, expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// The live grant a token carries, or nil when it is not one of ours (forged, unknown or from
    /// another state directory), has expired or was revoked.
    func grant(_ token: String) -> Grant? {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 4096 else { return nil }
        let parts = token.dropFirst(Self.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let body = Base64URLCodec.decode(parts[0]), let mac = Base64URLCodec.decode(parts[1]),
            isAuthentic(mac, body),
            let claims = try? JSONParser.parse(body), let projectId = claims["p"]?.stringValue,
            let scopes = claims["s"]?.arrayValue?.compactMap(\.stringValue), let expiresAt = claims["e"]?.int64Value,
            expiresAt > wallSeconds()
        else { return nil }
        // Tokens of versions that did not write `i` were issued a lifetime before they expire.
        let issuedAt = claims["i"]?.int64Value ?? (expiresAt - Self.lifetimeSeconds) * 1000
        if let revokedAt = revocations.withLock({ $0[projectId] }), issuedAt <= revokedAt { return nil }
        return Grant(token: token, projectId: projectId, scopes: Set(scopes), expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// Projects whose revocation is kept.
    var revocationCount: Int { revocations.withLock { $0.count } }

    /// Revokes every token of `projectId` issued until now; tokens issued later are good.
    package func revoke(projectId: String) {
        let now = wallSeconds() * 1000
        revocations.withLock { kept in
            // A revocation older than a token's lifetime concerns only tokens that have expired.
            kept = kept.filter { $0.value > now - Self.lifetimeSeconds * 1000 }
            // Never back in time: a token issued after an earlier revocation in this same second
            // (`issuedAt` past it) is revoked too.
            kept[projectId] = max(now, (kept[projectId] ?? .min) + 1)
            if kept.count > Self.maxRevocations, let oldest = kept.min(by: { $0.value < $1.value })?.key { kept[oldest] = nil }
        }
    }

    /// The signing key from `<state>/access-token.key`, made on first use. Best effort, as for the
    /// service-account keys: a key that cannot be kept still signs this run's tokens.
    private static func loadOrCreateKey(in directory: String?) -> [UInt8] {
        let path = directory.map { $0 + "/" + keyFileName }
        if let path, let data = try? StateFile.read(path, limit: 64, followLinks: false), data.count == 32 {
            return data
        }
        var random = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        if let directory, let path {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // A new file renamed into place: a link planted at the path is replaced, never
            // written through (StateFile, docs/security.md).
            try? StateFile.write(key, to: path, mode: 0o600)
            // Read back: of two instances starting at once on one directory, the last write wins for both.
            if let kept = try? StateFile.read(path, limit: 64, followLinks: false), kept.count == 32 { return kept }
        }
        return key
    }
}

extension AccessGrants {
    /// Issues a grant and records it as an `accessTokenGranted` event naming the route, `via`.
    package func issue(projectId: String, scopes: Set<String>, via: String, recordingIn emulator: Emulator) -> Grant {
        let grant = issue(projectId: projectId, scopes: scopes)
        emulator.recordAccessTokens(.granted, projectId: projectId, detail: via)
        return grant
    }
}
