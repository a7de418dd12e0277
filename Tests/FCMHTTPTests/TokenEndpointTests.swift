// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import Foundation
import Testing

@Suite("OAuth token endpoint: audiences and tokens that outlive a restart")
struct TokenEndpointTests {
    /// An emulator on `stateDirectory`, with the strict project `my-app`, and its key file.
    private func emulator(stateDirectory: String?) throws -> (InProcess, JSONValue) {
        let api = InProcess(fronts: FrontConfiguration(stateDirectory: stateDirectory))
        try api.emulator.createProject(id: "my-app", number: "1234")
        return (api, try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount"))
    }

    /// `aud` may name any of the endpoint's own token paths, on either port and either loopback
    /// name (FCM-WIRE.md §6.4 step 7); Go puts the key file's token_uri there.
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
}
