// SPDX-License-Identifier: Apache-2.0

/// The access token `send_message` last got for each project, kept as an app's credentials keep
/// theirs until the API refuses it (an expired or revoked token answers 401), so a send is not
/// also an `accessTokenGranted` event each time.
actor BearerTokens {
    /// Projects remembered at once; past it the cache starts over (a token is only a mint away).
    static let maxProjects = 1000

    private var tokens: [String: String] = [:]

    func token(for project: String) -> String? { tokens[project] }

    func keep(_ token: String, for project: String) {
        if tokens.count >= Self.maxProjects { tokens = [:] }
        tokens[project] = token
    }

    func forget(_ project: String) { tokens[project] = nil }
}
