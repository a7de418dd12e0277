// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Foundation
import Synchronization
import Testing

@Suite("OAuth token endpoint, bearer checks and IID")
struct AuthTests {
    static let scope = TokenClient.scope

    /// An emulator with a strict project `my-app` and its key file.
    private func setUp() throws -> (InProcess, JSONValue) {
        let api = InProcess()
        try api.emulator.createProject(id: "my-app", number: "1234")
        let keyFile = try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount")
        return (api, keyFile)
    }

    private func assertion(_ keyFile: JSONValue, claims: [(String, JSONValue)]? = nil, header: JSONValue? = nil) throws -> String {
        try TokenClient.assertion(keyFile, claims: claims, header: header)
    }

    private func b64(_ bytes: [UInt8]) -> String { TokenClient.b64(bytes) }

    private func exchange(_ api: InProcess, _ assertion: String, grantType: String = TokenClient.jwtBearer) -> HTTPResponse {
        TokenClient.exchange(api, assertion, grantType: grantType)
    }

    @Test func keyFilePointsBackAtTheEmulator() throws {
        let (_, keyFile) = try setUp()
        #expect(keyFile["type"]?.stringValue == "service_account")
        #expect(keyFile["token_uri"]?.stringValue == "http://127.0.0.1:9092/token")
        #expect(keyFile["private_key"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        #expect(keyFile["client_email"]?.stringValue == "firebase-adminsdk-fcmemu@my-app.iam.gserviceaccount.com")
    }

    @Test func tokenFlowAuthorisesSendsToItsOwnProjectOnly() throws {
        let (api, keyFile) = try setUp()
        let response = exchange(api, try assertion(keyFile))
        #expect(response.status == 200)
        let body = try JSONParser.parse(response.body)
        #expect(body["expires_in"] == .int(3599))
        #expect(body["token_type"] == .string("Bearer"))
        let token = try #require(body["access_token"]?.stringValue)
        #expect(token.hasPrefix("ya29."))
        let bearer = [("Authorization", "Bearer \(token)")]
        #expect(api.call("POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"news"}}"#, headers: bearer).status == 200)
        #expect(api.call("POST", "/v1/projects/1234/messages:send", #"{"message":{"topic":"news"}}"#, headers: bearer).status == 200)
        try api.emulator.createProject(id: "other-app")
        let other = api.call("POST", "/v1/projects/other-app/messages:send", #"{"message":{"topic":"news"}}"#, headers: bearer)
        #expect(other.status == 403)
        #expect(
            other.bodyText.contains(
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/other-app'")
        )
    }

    /// The scheme is matched without case and the token is what follows the first space after
    /// it; a header with no token, or another scheme, is no bearer at all.
    @Test func authorizationHeaderIsReadAsSchemeThenToken() throws {
        let (api, keyFile) = try setUp()
        let token = try #require(try JSONParser.parse(exchange(api, try assertion(keyFile)).body)["access_token"]?.stringValue)
        func status(_ authorization: String) -> Int {
            api.call(
                "POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"news"}}"#,
                headers: [("Authorization", authorization)]
            ).status
        }
        #expect(status("Bearer \(token)") == 200)
        #expect(status("bEARER \(token)") == 200)
        #expect(status("  Bearer \(token)") == 200)
        #expect(status("Bearer  \(token)") == 401)  // the token would begin with a space
        #expect(status("Bearer") == 401)
        #expect(status("Bearer ") == 401)
        #expect(status("Basic \(token)") == 401)
        #expect(status("Bearer\(token)") == 401)
    }

    @Test func expiredAccessTokenIs401() throws {
        let wall = Mutex<Int64>(Int64(Date().timeIntervalSince1970))
        var fronts = FrontConfiguration()
        fronts.wallSeconds = { wall.withLock { $0 } }
        let api = InProcess(fronts: fronts)
        try api.emulator.createProject(id: "my-app")
        let keyFile = try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount")
        let token = try #require(try JSONParser.parse(exchange(api, try assertion(keyFile)).body)["access_token"]?.stringValue)
        let send = {
            api.call(
                "POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"x"}}"#, headers: [("Authorization", "Bearer \(token)")])
        }
        #expect(send().status == 200)
        wall.withLock { $0 += 3600 }
        #expect(send().status == 401)
    }

    @Test func missingOrUnknownBearerIs401WithGooglesBody() throws {
        let (api, _) = try setUp()
        for headers in [[], [("Authorization", "Bearer ya29.nope")], [("Authorization", "key=AAAA")]] {
            let response = api.call("POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"x"}}"#, headers: headers)
            #expect(response.status == 401)
            let error = try JSONParser.parse(response.body)
            #expect(error.string("error.status") == "UNAUTHENTICATED")
            #expect(error.string("error.message")?.hasPrefix("Request had invalid authentication credentials.") == true)
        }
    }

    @Test func scopesWithoutMessagingAre403() throws {
        let (api, keyFile) = try setUp()
        let now = Int64(Date().timeIntervalSince1970)
        let claims: [(String, JSONValue)] = [
            ("iat", .int(now)), ("exp", .int(now + 3600)), ("iss", keyFile["client_email"] ?? .null),
            ("aud", .string("https://oauth2.googleapis.com/token")), ("scope", .string("https://www.googleapis.com/auth/datastore")),
        ]
        let token = try #require(
            try JSONParser.parse(exchange(api, try assertion(keyFile, claims: claims)).body)["access_token"]?.stringValue)
        let response = api.call(
            "POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"x"}}"#, headers: [("Authorization", "Bearer \(token)")])
        #expect(response.status == 403)
        #expect(response.bodyText.contains("Request had insufficient authentication scopes."))
    }

    @Test func laxModeAcceptsAnyBearer() throws {
        let api = InProcess(fronts: FrontConfiguration(authMode: .lax))
        try api.emulator.createProject(id: "my-app")
        #expect(
            api.call(
                "POST", "/v1/projects/my-app/messages:send", #"{"message":{"topic":"x"}}"#, headers: [("Authorization", "Bearer anything")]
            ).status == 200)
    }

    @Test func badAssertionsGetGooglesErrors() throws {
        let (api, keyFile) = try setUp()
        let email = keyFile["client_email"] ?? .null
        let now = Int64(Date().timeIntervalSince1970)
        func claims(_ changes: [String: JSONValue?]) -> [(String, JSONValue)] {
            var base: [(String, JSONValue)] = [
                ("iat", .int(now)), ("exp", .int(now + 3600)), ("iss", email),
                ("aud", .string("https://oauth2.googleapis.com/token")), ("scope", .string(Self.scope)),
            ]
            for (key, value) in changes {
                base.removeAll { $0.0 == key }
                if let value { base.append((key, value)) }
            }
            return base
        }
        let cases: [(String, String, String)] = [
            (try assertion(keyFile, claims: claims(["iat": nil])), "invalid_grant", "Invalid JWT: iat (issued at) is not set."),
            (
                try assertion(keyFile, claims: claims(["exp": .int(now + 7200)])), "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check"
                    + " your iat and exp values in the JWT claim."
            ),
            (
                try assertion(keyFile, claims: claims(["scope": .string("")])), "invalid_scope",
                "Invalid OAuth scope or ID token audience provided."
            ),
            (
                try assertion(keyFile, claims: claims(["aud": .string("https://example.com")])), "invalid_grant",
                "Invalid JWT: Failed audience check."
            ),
            (
                try assertion(keyFile, header: .object([("alg", .string("RS256")), ("kid", .string("nope"))])), "invalid_grant",
                "Invalid JWT Signature."
            ),
            ("not.a.jwt", "invalid_request", "Bad Request"),
        ]
        for (jwt, error, description) in cases {
            let body = try JSONParser.parse(exchange(api, jwt).body)
            #expect(body["error"]?.stringValue == error, "\(description)")
            #expect(body["error_description"]?.stringValue == description)
        }
        let tampered = try assertion(keyFile)
        let parts = tampered.split(separator: ".")
        let forged = parts[0] + "." + b64(Array(claims(["scope": .string("x")]).description.utf8)) + "." + parts[2]
        #expect(try JSONParser.parse(exchange(api, String(forged)).body)["error"]?.stringValue == "invalid_request")
        let otherScope = claims(["scope": .string("https://www.googleapis.com/auth/cloud-platform")])
        let wrongSignature = parts[0] + "." + b64(Array(JSONValue.object(otherScope).encoded().utf8)) + "." + parts[2]
        #expect(
            try JSONParser.parse(exchange(api, String(wrongSignature)).body)["error_description"]?.stringValue == "Invalid JWT Signature.")
        #expect(try JSONParser.parse(exchange(api, tampered, grantType: "password").body)["error"]?.stringValue == "unsupported_grant_type")
    }

    /// `exp - iat` of Int64.max and Int64.min trapped.
    @Test func extremeClaimsAreRefusedNotTrapped() throws {
        let (api, keyFile) = try setUp()
        let claims: [(String, JSONValue)] = [
            ("iat", .int(Int64.min)), ("exp", .int(Int64.max)), ("iss", keyFile["client_email"] ?? .null),
            ("aud", .string("https://oauth2.googleapis.com/token")), ("scope", .string(Self.scope)),
        ]
        let body = try JSONParser.parse(exchange(api, try assertion(keyFile, claims: claims)).body)
        #expect(body["error"]?.stringValue == "invalid_grant")
    }

    /// IID URLs name no project: a call about `demo-` tokens only takes any bearer, as
    /// `messages:send` to a demo project does; one naming a strict project's token still needs a grant.
    @Test func iidAcceptsAnyBearerForDemoTokensOnly() throws {
        let (api, _) = try setUp()
        let demo = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: DemoProject.id)
        let strict = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: "my-app")
        let bearer = [("Authorization", "Bearer ya29.cached-by-the-sdk"), ("access_token_auth", "true")]
        let body = #"{"to":"/topics/news","registration_tokens":["\#(demo.token)"]}"#
        let added = api.call("POST", "/iid/v1:batchAdd", body, headers: bearer)
        #expect(added.status == 200)
        #expect(added.bodyText == #"{"results":[{}]}"# + "\n")
        #expect(api.call("GET", "/iid/info/\(demo.token)", headers: bearer).status == 200)
        #expect(api.call("POST", "/iid/v1/\(demo.token)/rel/topics/sport", headers: bearer).status == 200)
        #expect(try api.emulator.device(demo.token, projectId: DemoProject.id).topics == ["news", "sport"])
        let mixed = #"{"to":"/topics/news","registration_tokens":["\#(demo.token)","\#(strict.token)"]}"#
        #expect(api.call("POST", "/iid/v1:batchAdd", mixed, headers: bearer).status == 401)
        #expect(api.call("GET", "/iid/info/\(strict.token)", headers: bearer).status == 401)
    }

    @Test func iidBatchAddRemoveInfoAndRelation() throws {
        let (api, _) = try setUp()
        let key = try #require(try api.emulator.project("my-app").serverKeys.first)
        let auth = [("Authorization", "key=\(key)"), ("access_token_auth", "true")]
        let mine = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x"), projectId: "my-app")
        let theirs = try api.emulator.createDevice(DeviceSpec(platform: .ios, appId: "com.y"), projectId: DemoProject.id)
        let unknown = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "x", count: 134)
        let body = #"{"to":"/topics/movies","registration_tokens":["\#(mine.token)","\#(unknown)","\#(theirs.token)","junk"]}"#
        let added = api.call("POST", "/iid/v1:batchAdd", body, headers: auth)
        #expect(added.status == 200)
        #expect(
            added.bodyText == #"{"results":[{},{"error":"NOT_FOUND"},{"error":"INVALID_ARGUMENT"},{"error":"INVALID_ARGUMENT"}]}"# + "\n")
        #expect(try api.emulator.device(mine.token, projectId: "my-app").topics == ["movies"])

        let info = try JSONParser.parse(api.call("GET", "/iid/info/\(mine.token)?details=true", headers: auth).body)
        #expect(info["platform"] == .string("ANDROID"))
        #expect(info["authorizedEntity"] == .string("1234"))
        #expect(info["rel"]?["topics"]?["movies"]?["addDate"] == .string("2026-01-01"))
        #expect(api.call("GET", "/iid/info/junk", headers: auth).status == 400)
        #expect(api.call("GET", "/iid/info/\(unknown)", headers: auth).bodyText.contains("No information found about this instance id."))

        #expect(api.call("POST", "/iid/v1/\(mine.token)/rel/topics/sport", headers: auth).bodyText == "{}\n")
        let removed = api.call("POST", "/iid/v1:batchRemove", #"{"to":"movies","registration_tokens":["\#(mine.token)"]}"#, headers: auth)
        #expect(removed.bodyText == #"{"results":[{}]}"# + "\n")
        #expect(try api.emulator.device(mine.token, projectId: "my-app").topics == ["sport"])

        #expect(
            api.call("POST", "/iid/v1:batchAdd", #"{"to":"movies","registration_tokens":[]}"#, headers: auth).bodyText.contains(
                "MissingIIdToken"))
        #expect(api.call("POST", "/iid/v1:batchAdd", #"{"to":"bad topic","registration_tokens":["a"]}"#, headers: auth).status == 400)
        #expect(api.call("POST", "/iid/v1:batchAdd", body, headers: [("Authorization", "key=wrong")]).status == 401)
    }
}
