// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import Testing

/// The GCE metadata server: Application Default Credentials with no key file.
@Suite("GCE metadata server")
struct MetadataServerTests {
    let flavor = [("Metadata-Flavor", "Google")]

    @Test func theHeaderIsRequiredAndEchoed() throws {
        let api = InProcess()
        let refused = api.call("GET", "/computeMetadata/v1/project/project-id", headers: [])
        #expect(refused.status == 403)
        #expect(refused.bodyText.contains("Missing Metadata-Flavor:Google header."))
        let answered = api.call("GET", "/computeMetadata/v1/project/project-id", headers: flavor)
        #expect(answered.status == 200)
        #expect(answered.bodyText == DemoProject.id)
        #expect(answered.header("Metadata-Flavor") == "Google")
        // The SDKs' ping: the root, with the header, answers as GCE's server does.
        #expect(api.call("GET", "/", headers: flavor).header("Metadata-Flavor") == "Google")
        #expect(api.call("GET", "/", headers: []).header("Metadata-Flavor") == nil)
    }

    @Test func theInstanceTokenSendsToAStrictProject() throws {
        var fronts = FrontConfiguration()
        fronts.metadataProject = "strict-app"
        let api = InProcess(Emulator(), fronts: fronts)
        _ = try api.emulator.createProject(id: "strict-app", number: "4444")
        #expect(api.call("GET", "/computeMetadata/v1/project/numeric-project-id", headers: flavor).bodyText == "4444")
        let account = try JSONParser.parse(
            api.call("GET", "/computeMetadata/v1/instance/service-accounts/default/?recursive=true", headers: flavor).body)
        #expect(account["email"]?.stringValue?.hasSuffix("@strict-app.iam.gserviceaccount.com") == true)
        let token = try JSONParser.parse(
            api.call("GET", "/computeMetadata/v1/instance/service-accounts/default/token", headers: flavor).body)
        #expect(token["token_type"] == .string("Bearer"))
        #expect(token["expires_in"]?.int64Value == 3599)
        let bearer = try #require(token["access_token"]?.stringValue)
        let send = "/v1/projects/strict-app/messages:send"
        let sent = api.call("POST", send, #"{"message":{"topic":"news"}}"#, headers: [("Authorization", "Bearer \(bearer)")])
        #expect(sent.status == 200)
        #expect(api.call("POST", send, #"{"message":{"topic":"news"}}"#, headers: [("Authorization", "Bearer forged")]).status == 401)
    }
}
