// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Foundation
import Testing

@Suite("OAuth token endpoint: audiences and tokens that outlive a restart")
struct TokenEndpointTests {
    /// An emulator sharing `stateDirectory`, with the strict project `my-app`, and its key file.
    private func emulator(stateDirectory: String?) throws -> (InProcess, JSONValue) {
        let api = InProcess(fronts: FrontConfiguration(stateDirectory: stateDirectory))
        try api.emulator.createProject(id: "my-app", number: "1234")
        return (api, try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount"))
    }

    private func send(_ api: InProcess, bearer: String) -> HTTPResponse {
        send(api, project: "my-app", bearer: bearer)
    }

    private func send(_ api: InProcess, project: String, bearer: String) -> HTTPResponse {
        let body = #"{"message":{"topic":"news"}}"#
        return api.call("POST", "/v1/projects/\(project)/messages:send", body, headers: [("Authorization", "Bearer \(bearer)")])
    }

    /// A state directory not made yet, as on a first start.
    private func temporaryDirectory() throws -> String { try ScratchDirectory("token-endpoint").sub("state") }

    /// `aud` may name any of the endpoint's own token paths, on either port and either loopback
    /// name (docs/http-v1.md, "Access tokens"); Go puts the key file's token_uri there.
    @Test(arguments: [
        ("http://127.0.0.1:9092/token", true), ("http://127.0.0.1:9092/o/oauth2/token", true),
        ("https://127.0.0.1:9093/oauth2/v4/token", true), ("http://localhost:9092/oauth2/v4/token", true),
        ("https://127.0.0.1/o/oauth2/token", true), ("http://127.0.0.1:9092/emulator/v1/info", false),
        ("http://example.com/token", false), ("ftp://127.0.0.1:9092/token", false),
    ])
    func audienceMayBeAnyOwnTokenURL(audience: String, accepted: Bool) throws {
        let (api, keyFile) = try emulator(stateDirectory: nil)
        let jwt = try TokenClient.assertion(keyFile, claims: TokenClient.claims(keyFile, audience: audience))
        let body = try JSONParser.parse(TokenClient.exchange(api, jwt).body)
        if accepted {
            #expect(body["access_token"]?.stringValue?.hasPrefix("ya29.") == true, "\(audience)")
        } else {
            #expect(body["error_description"]?.stringValue == "Invalid JWT: Failed audience check.", "\(audience)")
        }
    }

    /// Node and Go cache a token for up to an hour and never refresh on 401, so a second instance
    /// on the same state directory (a restarted `serve`) must honour the first one's tokens.
    @Test func tokensSurviveARestartOnTheSameStateDirectory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, keyFile) = try emulator(stateDirectory: directory)
        let token = try TokenClient.accessToken(first, keyFile)
        #expect(send(first, bearer: token).status == 200)
        let (restarted, sameKeyFile) = try emulator(stateDirectory: directory)
        #expect(sameKeyFile["private_key_id"] == keyFile["private_key_id"])
        #expect(send(restarted, bearer: token).status == 200)
        try restarted.emulator.createProject(id: "other-app")
        #expect(send(restarted, project: "other-app", bearer: token).status == 403)
    }

    @Test func forgedAndForeignTokensAre401() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (api, keyFile) = try emulator(stateDirectory: directory)
        let token = try TokenClient.accessToken(api, keyFile)
        let (stranger, strangerKeyFile) = try emulator(stateDirectory: nil)
        let foreign = try TokenClient.accessToken(stranger, strangerKeyFile)
        // Another signature, a grant rewritten under the old signature, and no signature at all.
        let parts = token.split(separator: ".")
        let resigned = parts.dropLast().joined(separator: ".") + "." + String(foreign.split(separator: ".").last ?? "")
        let grant = #"{"p":"my-app","s":["https://www.googleapis.com/auth/cloud-platform"],"e":99999999999}"#
        let regranted = TokenClient.b64(Array(grant.utf8))
        let rewritten = "ya29.c." + regranted + "." + String(parts.last ?? "")
        for bearer in [foreign, resigned, rewritten, "ya29.c." + regranted, "ya29.unknown", String(token.dropLast(2))] {
            let response = send(api, bearer: bearer)
            #expect(response.status == 401, "\(bearer)")
            #expect(try JSONParser.parse(response.body).string("error.status") == "UNAUTHENTICATED")
        }
        #expect(send(api, bearer: token).status == 200)
    }
}
