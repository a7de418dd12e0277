// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// A project whose Firebase Cloud Messaging API is off answers every v1 call with Google's 403
/// `SERVICE_DISABLED` (docs/http-v1.md, "An API that is not enabled").
@Suite("The FCM API turned off for a project")
struct ServiceDisabledTests {
    private static let send = #"{"message":{"topic":"news"}}"#

    /// A strict project `my-app` (number 1234) with its API off, and a bearer of its service account.
    private func setUp() throws -> (InProcess, [(String, String)]) {
        let api = InProcess()
        let created = api.call("POST", "/emulator/v1/projects", #"{"id":"my-app","number":"1234","apiEnabled":false}"#)
        #expect(created.status == 201)
        #expect(try JSONParser.parse(created.body)["apiEnabled"] == .bool(false))
        let keyFile = try api.json("GET", "/emulator/v1/projects/my-app/serviceAccount")
        let token = try #require(try JSONParser.parse(TokenClient.exchange(api, try TokenClient.assertion(keyFile)).body)["access_token"])
        return (api, [("Authorization", "Bearer \(token.stringValue ?? "")")])
    }

    @Test func everyV1CallAnswersGooglesServiceDisabledError() throws {
        let (api, bearer) = try setUp()
        let response = api.call("POST", "/v1/projects/my-app/messages:send", Self.send, headers: bearer)
        #expect(response.status == 403)
        let error = try #require(try JSONParser.parse(response.body)["error"])
        #expect(error["status"] == .string("PERMISSION_DENIED"))
        let activation = "https://console.developers.google.com/apis/api/fcm.googleapis.com/overview?project=1234"
        #expect(
            error["message"]?.stringValue
                == "Firebase Cloud Messaging API has not been used in project 1234 before or it is disabled. Enable it by visiting "
                + activation + " then retry. If you enabled this API recently, wait a few minutes for the action to propagate"
                + " to our systems and retry.")
        let details = try #require(error["details"]?.arrayValue)
        let info = try #require(details.first { $0["@type"] == .string("type.googleapis.com/google.rpc.ErrorInfo") })
        #expect(info["reason"] == .string("SERVICE_DISABLED"))
        #expect(info["domain"] == .string("googleapis.com"))
        #expect(info["metadata"]?["service"] == .string("fcm.googleapis.com"))
        #expect(info["metadata"]?["consumer"] == .string("projects/1234"))
        #expect(info["metadata"]?["activationUrl"] == .string(activation))
        let help = try #require(details.first { $0["@type"] == .string("type.googleapis.com/google.rpc.Help") })
        #expect(help["links"]?.arrayValue?.first?["url"] == .string(activation))
        // The body is not read: a malformed one gets the same answer, and so do the project's
        // number and the v1 topic-subscription calls.
        #expect(api.call("POST", "/v1/projects/my-app/messages:send", "{", headers: bearer).status == 403)
        #expect(api.call("POST", "/v1/projects/1234/messages:send", Self.send, headers: bearer).status == 403)
        let subscribe = api.call("POST", "/v1/projects/my-app/registrations/tok/topicSubscriptions?topic_name=news", "{}", headers: bearer)
        #expect(subscribe.status == 403)
        #expect(subscribe.bodyText.contains("SERVICE_DISABLED"))
    }

    @Test func credentialsAreCheckedFirstAndNothingIsSent() throws {
        let (api, _) = try setUp()
        let before = try api.json("GET", "/emulator/v1/projects/my-app/events?kind=accepted")
        let unknown = api.call("POST", "/v1/projects/my-app/messages:send", Self.send, headers: [("Authorization", "Bearer nope")])
        #expect(unknown.status == 401)
        #expect(api.call("POST", "/v1/projects/my-app/messages:send", Self.send).status == 401)
        #expect(try api.json("GET", "/emulator/v1/projects/my-app/events?kind=accepted") == before)
        let refused = try api.json("GET", "/emulator/v1/projects/my-app/events?kind=refused")
        #expect(refused["events"]?.arrayValue?.isEmpty == false)
    }

    @Test func turningTheAPIOnLetsTheSameBearerSend() throws {
        let (api, bearer) = try setUp()
        #expect(api.call("POST", "/v1/projects/my-app/messages:send", Self.send, headers: bearer).status == 403)
        let patched = api.call("PATCH", "/emulator/v1/projects/my-app", #"{"apiEnabled":true}"#)
        #expect(patched.status == 200)
        #expect(try JSONParser.parse(patched.body)["apiEnabled"] == .bool(true))
        #expect(api.call("POST", "/v1/projects/my-app/messages:send", Self.send, headers: bearer).status == 200)
        #expect(api.call("PATCH", "/emulator/v1/projects/my-app", #"{"apiEnabled":"no"}"#).status == 400)
        #expect(api.call("PATCH", "/emulator/v1/projects/my-app", #"{"serverKeys":[]}"#).status == 400)
    }

    /// Demo projects take any bearer, and still answer for their API.
    @Test func aDemoProjectWithItsAPIOffRefusesToo() throws {
        let api = InProcess()
        #expect(api.call("PATCH", "/emulator/v1/projects/\(DemoProject.id)", #"{"apiEnabled":false}"#).status == 200)
        let response = api.call(
            "POST", "/v1/projects/\(DemoProject.id)/messages:send", Self.send, headers: [("Authorization", "Bearer any")])
        #expect(response.status == 403)
        #expect(response.bodyText.contains("projects/\(DemoProject.number)"))
    }
}
