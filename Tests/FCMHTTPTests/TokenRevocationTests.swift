// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMJSON
import FCMTesting
import FCMTransport
import Synchronization
import Testing

/// Revoking a project's access tokens (docs/http-v1.md, "Revoking access tokens"): the tokens
/// issued until then get 401, new ones work, and every grant is an event a test counts.
@Suite("Access tokens revoked on demand")
struct TokenRevocationTests {
    private static let send = #"{"message":{"topic":"news"}}"#

    private func token(_ api: InProcess, _ keyFile: JSONValue) throws -> String {
        let body = try JSONParser.parse(TokenClient.exchange(api, try TokenClient.assertion(keyFile)).body)
        return try #require(body["access_token"]?.stringValue)
    }

    private func status(_ api: InProcess, _ token: String, project: String = "my-app") -> Int {
        api.call("POST", "/v1/projects/\(project)/messages:send", Self.send, headers: [("Authorization", "Bearer \(token)")]).status
    }

    private func kinds(_ api: InProcess, _ kind: String, project: String = "my-app") throws -> [JSONValue] {
        try api.json("GET", "/emulator/v1/projects/\(project)/events?kind=\(kind)")["events"]?.arrayValue ?? []
    }

    @Test func revokedTokensGet401AndANewGrantSends() throws {
        let api = InProcess()
        try api.emulator.createProject(id: "my-app")
        try api.emulator.createProject(id: "other-app")
        let keyFile = try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount")
        let otherKey = try api.json("GET", "/emulator/v1/projects/other-app/serviceAccount")
        let first = try token(api, keyFile)
        let metadata = try #require(try api.json("POST", "/emulator/v1/projects/my-app/accessTokens", status: 201)["accessToken"]?.stringValue)
        let other = try token(api, otherKey)
        #expect(status(api, first) == 200)

        let revoked = api.call("POST", "/emulator/v1/projects/my-app/accessTokens:revoke", "")
        #expect(revoked.status == 200)
        #expect(status(api, first) == 401)
        #expect(status(api, metadata) == 401)
        // Another project's tokens are its own.
        #expect(status(api, other, project: "other-app") == 200)
        // The refresh: a token issued after the revocation, even within the same second, sends.
        let second = try token(api, keyFile)
        #expect(status(api, second) == 200)

        let grants = try kinds(api, "accessTokenGranted")
        #expect(grants.map { $0["detail"]?.stringValue } == ["jwt-bearer", "control", "jwt-bearer"])
        #expect(grants.allSatisfy { $0["api"] == .string("oauth") })
        let revocations = try kinds(api, "accessTokensRevoked")
        #expect(revocations.count == 1)
        #expect(revocations.first?["detail"] == .string("firebase-adminsdk-fcmemu@my-app.iam.gserviceaccount.com"))
        #expect(api.call("POST", "/emulator/v1/projects/no-such/accessTokens:revoke", "").status == 404)
    }

    /// On a fixed wall clock: a revocation covers what was issued before it in its second, and
    /// never what comes after; two revocations in one second each cover what came between.
    @Test func aRevocationSplitsOneSecond() {
        let grants = AccessGrants(wallSeconds: { 1_000 })
        let scopes: Set<String> = ["https://www.googleapis.com/auth/firebase.messaging"]
        let before = grants.issue(projectId: "p", scopes: scopes)
        let elsewhere = grants.issue(projectId: "q", scopes: scopes)
        grants.revoke(projectId: "p")
        let after = grants.issue(projectId: "p", scopes: scopes)
        #expect(grants.grant(before.token) == nil)
        #expect(grants.grant(after.token)?.projectId == "p")
        #expect(grants.grant(elsewhere.token)?.projectId == "q")
        grants.revoke(projectId: "p")
        #expect(grants.grant(after.token) == nil)
        #expect(grants.grant(grants.issue(projectId: "p", scopes: scopes).token) != nil)
    }

    /// Revocations are forgotten once every token they concern has expired, and never grow past
    /// their cap.
    @Test func revocationsAreBounded() {
        let now = Atomic<Int64>(1_000)
        let grants = AccessGrants(wallSeconds: { now.load(ordering: .relaxed) })
        let scopes: Set<String> = ["https://www.googleapis.com/auth/firebase.messaging"]
        for i in 0..<(AccessGrants.maxRevocations + 10) { grants.revoke(projectId: "p\(i)") }
        #expect(grants.revocationCount == AccessGrants.maxRevocations)
        now.store(1_000 + AccessGrants.lifetimeSeconds + 1, ordering: .relaxed)
        grants.revoke(projectId: "late")
        #expect(grants.revocationCount == 1)
        #expect(grants.grant(grants.issue(projectId: "p1", scopes: scopes).token) != nil)
    }
}
