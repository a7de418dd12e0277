// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// Access tokens issued by the token endpoint: opaque `ya29.` strings bound to a project, scopes
/// and an expiry on the wall clock (FCM-WIRE.md §6.4 step 8).
final class AccessGrants: Sendable {
    static let lifetimeSeconds: Int64 = 3600

    struct Grant: Sendable {
        let token: String
        let projectId: String
        let scopes: Set<String>
        let expiresAt: Int64
    }

    private let grants = Mutex<[String: Grant]>([:])
    private let wallSeconds: @Sendable () -> Int64

    init(wallSeconds: @escaping @Sendable () -> Int64) {
        self.wallSeconds = wallSeconds
    }

    func issue(projectId: String, scopes: Set<String>) -> Grant {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let suffix = String((0..<120).map { _ in alphabet[Int(random.next() % 64)] })
        let grant = Grant(token: "ya29.c.\(suffix)", projectId: projectId, scopes: scopes, expiresAt: wallSeconds() + Self.lifetimeSeconds)
        grants.withLock { grants in
            // Forget expired grants now and then so a long run does not grow without bound.
            if grants.count > 10_000 {
                let now = wallSeconds()
                grants = grants.filter { $0.value.expiresAt > now }
            }
            grants[grant.token] = grant
        }
        return grant
    }

    /// The live grant for a token, or nil when it is unknown or expired.
    func grant(_ token: String) -> Grant? {
        guard let grant = grants.withLock({ $0[token] }), grant.expiresAt > wallSeconds() else { return nil }
        return grant
    }
}
