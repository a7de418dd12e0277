// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// Firebase Installations and FCM registrations as a real receiver calls them, with the bytes
/// firebase-messaging 0.4.5 sends (docs/receivers.md, "Registration").
@Suite("Real receivers: Firebase Installations and FCM registrations")
struct ReceiverRegistrationTests {
    static let apiKey = "AIzaSyDemo-fcm-emu-api-key-0123456789ab"
    let api = InProcess()
    let project = DemoProject.id

    /// What firebase-messaging sends: JSON labelled text/plain, an API key, the client header.
    func post(_ path: String, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: "POST", target: path,
                headers: [
                    ("Host", "firebaseinstallations.googleapis.com"), ("Content-Type", "text/plain; charset=utf-8"),
                    ("x-goog-api-key", Self.apiKey), ("x-firebase-client", "eyJoZWFydGJlYXRzIjogW10sICJ2ZXJzaW9uIjogMn0="),
                ] + headers, body: body))
    }

    func json(_ response: HTTPResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    func install(fid: String = "fYUw2cKvjQoY/PSNOsACiYQ=") throws -> JSONValue {
        let response = post(
            "/v1/projects/\(project)/installations",
            #"{"appId": "1:123:web:abc", "authVersion": "FIS_v2", "fid": "\#(fid)", "sdkVersion": "w:0.6.6"}"#)
        #expect(response.status == 200, "\(response.bodyText)")
        #expect(response.header("Content-Type") == "application/json; charset=UTF-8")
        return try json(response)
    }

    func gcmToken() throws -> String {
        let checkin = try api.emulator.checkin(androidId: nil, securityToken: nil)
        return try api.emulator.registerGCM(
            androidId: checkin.androidId, securityToken: checkin.securityToken, app: "org.chromium.linux", subtype: "wp:x#1", sender: "BDOU")
    }

    static let p256dh = Base64URLCodec.encode(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)) + "="
    static let auth = "PfV9MGbfL_nCRfufU-s_IA=="

    func register(authToken: String, gcm: String, p256dh: String = p256dh, auth: String = auth) -> HTTPResponse {
        post(
            "/v1/projects/\(project)/registrations",
            #"{"web": {"applicationPubKey": null, "auth": "\#(auth)", "endpoint": "https://fcm.googleapis.com/fcm/send/\#(gcm)", "p256dh": "\#(p256dh)"}}"#,
            headers: [("x-goog-firebase-installations-auth", authToken)])
    }

    @Test func anInstallationAnswersAsFISDoes() throws {
        let answer = try install()
        // 17 bytes as the JS SDK writes them: 22 characters of base64url.
        #expect(answer["fid"]?.stringValue == "fYUw2cKvjQoY_PSNOsACiY")
        #expect(answer["name"]?.stringValue == "projects/\(DemoProject.number)/installations/fYUw2cKvjQoY_PSNOsACiY")
        #expect(answer["refreshToken"]?.stringValue?.isEmpty == false)
        #expect(answer["authToken"]?["expiresIn"]?.stringValue == "604800s")
        #expect(answer["authToken"]?["token"]?.stringValue?.hasPrefix("eyJ") == true)
    }

    @Test func apiKeysAreCheckedAsGoogleChecksThem() throws {
        let missing = api.responder.respond(
            HTTPRequest(method: "POST", target: "/v1/projects/\(project)/installations", headers: [("Host", "localhost")], body: "{}"))
        #expect(missing.status == 403)
        #expect(try json(missing)["error"]?["status"]?.stringValue == "PERMISSION_DENIED")
        let bad = post("/v1/projects/\(project)/installations", "{}", headers: []).status
        #expect(bad == 400)  // no fid
        let wrongKey = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/v1/projects/\(project)/installations", headers: [("Host", "localhost"), ("x-goog-api-key", "nope")],
                body: "{}"))
        #expect(wrongKey.status == 400)
        let error = try json(wrongKey)["error"]
        #expect(error?["message"]?.stringValue == "API key not valid. Please pass a valid API key.")
        #expect(error?["details"]?.arrayValue?.first?["reason"]?.stringValue == "API_KEY_INVALID")
    }

    @Test func aRegistrationGivesATokenTheV1APISendsTo() throws {
        let installation = try install()
        let gcm = try gcmToken()
        // firebase-messaging sends the bare token; the JS SDK `FIS <token>`.
        let authToken = try #require(installation["authToken"]?["token"]?.stringValue)
        let response = register(authToken: authToken, gcm: gcm)
        #expect(response.status == 200, "\(response.bodyText)")
        let answer = try json(response)
        let token = try #require(answer["token"]?.stringValue)
        #expect(answer["name"]?.stringValue == "projects/\(project)/registrations/\(token)")
        #expect(answer["web"]?["p256dh"]?.stringValue == Self.p256dh)
        #expect(register(authToken: "FIS " + authToken, gcm: gcm).status == 200)
        let device = try api.emulator.device(token, projectId: project)
        #expect(device.platform == .web)
        // The control API marks it as a real receiver, away until its MCS connection logs in.
        let shown = try api.json("GET", "/emulator/v1/projects/\(project)/devices/\(token)")
        #expect(shown["receiver"]?["connected"]?.boolValue == false)
        #expect(shown["receiver"]?["endpoint"]?.stringValue == "https://fcm.googleapis.com/fcm/send/\(gcm)")
        #expect(shown["webPush"] == nil)
        let sent = api.call("POST", "/v1/projects/\(project)/messages:send", #"{"message": {"token": "\#(token)", "data": {"k": "v"}}}"#)
        #expect(sent.status == 200, "\(sent.bodyText)")
    }

    @Test func registrationsRefuseBadKeysUnknownEndpointsAndExpiredTokens() throws {
        let installation = try install()
        let authToken = try #require(installation["authToken"]?["token"]?.stringValue)
        let gcm = try gcmToken()
        #expect(register(authToken: authToken, gcm: gcm, p256dh: "AAAA").status == 400)
        #expect(register(authToken: authToken, gcm: gcm, auth: "short").status == 400)
        #expect(register(authToken: authToken, gcm: "not-a-registration").status == 400)
        let unauthenticated = register(authToken: "forged", gcm: gcm)
        #expect(unauthenticated.status == 401)
        #expect(try json(unauthenticated)["error"]?["status"]?.stringValue == "UNAUTHENTICATED")
        _ = try api.emulator.advance(byMillis: 604_801_000)
        #expect(register(authToken: authToken, gcm: gcm).status == 401)
        // A refresh gives a token that works again.
        let fid = try #require(installation["fid"]?.stringValue)
        let refresh = try #require(installation["refreshToken"]?.stringValue)
        let renewed = post(
            "/v1/projects/\(project)/installations/\(fid)/authTokens:generate", #"{"installation": {"sdkVersion": "w:0.6.6"}}"#,
            headers: [("Authorization", "FIS_v2 " + refresh)])
        #expect(renewed.status == 200)
        let fresh = try #require(try json(renewed)["token"]?.stringValue)
        #expect(register(authToken: fresh, gcm: gcm).status == 200)
    }

    @Test func anUpdateChangesTheKeysAndEndpointAndKeepsTheToken() throws {
        let installation = try install()
        let authToken = try #require(installation["authToken"]?["token"]?.stringValue)
        let checkin = try api.emulator.checkin(androidId: nil, securityToken: nil)
        func gcm(_ subtype: String) throws -> String {
            try api.emulator.registerGCM(
                androidId: checkin.androidId, securityToken: checkin.securityToken, app: "org.chromium.linux", subtype: subtype, sender: "BDOU")
        }
        let first = try gcm("wp:x#1")
        let token = try #require(try json(register(authToken: authToken, gcm: first))["token"]?.stringValue)
        let second = try gcm("wp:x#2")
        let newKey = Base64URLCodec.encode(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))
        func patch(_ token: String, gcm: String) -> HTTPResponse {
            api.responder.respond(
                HTTPRequest(
                    method: "PATCH", target: "/v1/projects/\(project)/registrations/\(token)",
                    headers: [
                        ("Host", "fcmregistrations.googleapis.com"), ("x-goog-api-key", Self.apiKey),
                        ("x-goog-firebase-installations-auth", "FIS " + authToken),
                    ],
                    body: #"{"web": {"endpoint": "https://fcm.googleapis.com/fcm/send/\#(gcm)", "p256dh": "\#(newKey)", "auth": "\#(Self.auth)"}}"#))
        }
        let updated = patch(token, gcm: second)
        #expect(updated.status == 200, "\(updated.bodyText)")
        #expect(try json(updated)["token"]?.stringValue == token)
        let shown = try api.json("GET", "/emulator/v1/projects/\(project)/devices/\(token)")
        #expect(shown["receiver"]?["endpoint"]?.stringValue == "https://fcm.googleapis.com/fcm/send/\(second)")
        #expect(shown["receiver"]?["keys"]?["p256dh"]?.stringValue == newKey)
        #expect(patch("no-such-token", gcm: second).status == 404)
        // Another check-in's registration is not this device's to take.
        #expect(patch(token, gcm: try gcmToken()).status == 400)
    }

    @Test func deletingTheInstallationMakesTheTokenUnregistered() throws {
        let installation = try install()
        let authToken = try #require(installation["authToken"]?["token"]?.stringValue)
        let token = try #require(try json(register(authToken: authToken, gcm: try gcmToken()))["token"]?.stringValue)
        let fid = try #require(installation["fid"]?.stringValue)
        let refresh = try #require(installation["refreshToken"]?.stringValue)
        let delete = api.responder.respond(
            HTTPRequest(
                method: "DELETE", target: "/v1/projects/\(project)/installations/\(fid)",
                headers: [("Host", "localhost"), ("x-goog-api-key", Self.apiKey), ("Authorization", "FIS_v2 " + refresh)]))
        #expect(delete.status == 200)
        let sent = api.call("POST", "/v1/projects/\(project)/messages:send", #"{"message": {"token": "\#(token)", "data": {"k": "v"}}}"#)
        #expect(sent.status == 404)
        #expect(sent.bodyText.contains("UNREGISTERED"))
    }

    @Test func aWebPushToARealReceiverIsRelayedEncrypted() throws {
        let installation = try install()
        let authToken = try #require(installation["authToken"]?["token"]?.stringValue)
        let gcm = try gcmToken()
        let token = try #require(try json(register(authToken: authToken, gcm: gcm))["token"]?.stringValue)
        let vapid = P256.Signing.PrivateKey()
        let body: [UInt8] = Array(repeating: 9, count: 40)
        let pushed = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/fcm/send/\(gcm)",
                headers: [
                    ("Host", "fcm.googleapis.com"), ("TTL", "60"), ("Content-Encoding", "aesgcm"), ("Authorization", try WebPushPublisher.vapid(vapid)),
                    ("Crypto-Key", "dh=" + Self.p256dh.replacingOccurrences(of: "=", with: "")), ("Encryption", "salt=" + Self.auth),
                ], body: body))
        #expect(pushed.status == 201, "\(pushed.bodyText)")
        let inbox = try api.emulator.inbox(token, projectId: project).1
        #expect(inbox.isEmpty)  // offline: stored for its receiver
        #expect(try api.emulator.device(token, projectId: project).storedCount == 1)
    }
}
