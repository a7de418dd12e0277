// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import FCMTransport
import Foundation
import Testing

/// Web Push publication to a web device's subscription (docs/receivers.md).
@Suite("Web Push (RFC 8030, 8291, 8292)")
struct WebPushTests {
    private func b64(_ text: String) -> [UInt8] { Base64URLCodec.decode(text) ?? [] }

    /// RFC 8291 §5 and Appendix A: the worked example's message decrypts with the user agent's
    /// keys to its plaintext, byte for byte.
    @Test func theRFC8291ExampleDecrypts() throws {
        let subscription = try WebPushSubscription.restore(
            privateKey: b64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"), authSecret: b64("BTBZMqHH6r4Tts7J_aSIgg"),
            applicationServerKey: nil)
        #expect(
            subscription.publicKey
                == b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"))
        let body = b64(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
                + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
        #expect(body.count == 144)
        let plaintext = try WebPushDecryption.aes128gcm(body, subscription: subscription)
        #expect(plaintext == Array("When I grow up, I want to be a watermelon".utf8))
        // The same keys and salt on the publisher's side give the RFC's bytes (Appendix A).
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let made = try WebPushPublisher.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8), p256dh: subscription.publicKey, auth: subscription.authSecret,
            sender: sender, salt: b64("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(made == body)
        // A flipped byte does not decrypt.
        var tampered = body
        tampered[100] ^= 1
        #expect(throws: WebPushDecryption.Failure.self) { try WebPushDecryption.aes128gcm(tampered, subscription: subscription) }
    }

    @Test func base64URLRoundTrips() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 0xff) }
            #expect(Base64URLCodec.decode(Base64URLCodec.encode(bytes)) == bytes)
        }
        #expect(Base64URLCodec.decode("a") == nil)
        #expect(Base64URLCodec.decode("ab.c") == nil)
    }

    struct Setup {
        let api = InProcess()
        let vapidKey = P256.Signing.PrivateKey()
        let subscription: JSONValue
        let device: DeviceInfo

        init(state: String = "foreground") throws {
            let key = Base64URLCodec.encode(Array(vapidKey.publicKey.x963Representation))
            let made = try api.json(
                "POST", "/emulator/v1/projects/demo-fcm-emu/devices",
                #"{"platform":"web","state":"\#(state)","applicationServerKey":"\#(key)"}"#, status: 201)
            subscription = try #require(made.at("webPush"))
            device = try api.emulator.device(try #require(made.string("id")), projectId: DemoProject.id)
        }

        var path: String {
            let endpoint = subscription.string("endpoint") ?? ""
            return String(endpoint.dropFirst("https://fcm.googleapis.com".count))
        }

        func body(_ text: String) throws -> [UInt8] {
            try WebPushPublisher.encrypt(
                Array(text.utf8), p256dh: Base64URLCodec.decode(subscription.string("keys.p256dh") ?? "") ?? [],
                auth: Base64URLCodec.decode(subscription.string("keys.auth") ?? "") ?? [])
        }

        func push(
            _ body: [UInt8], path: String? = nil, ttl: String? = "60", extra: [(String, String)] = [], vapid: String?? = nil
        ) throws -> HTTPResponse {
            var headers: [(String, String)] = [("Host", "127.0.0.1:9092"), ("Content-Encoding", "aes128gcm")]
            if let ttl { headers.append(("TTL", ttl)) }
            switch vapid {
            case .none: headers.append(("Authorization", try WebPushPublisher.vapid(vapidKey)))
            case .some(.some(let value)): headers.append(("Authorization", value))
            case .some(.none): break
            }
            return api.responder.respond(
                HTTPRequest(method: "POST", target: path ?? self.path, headers: headers + extra, body: body))
        }

        func inbox() throws -> [Delivery] { try api.emulator.inbox(String(device.id), projectId: DemoProject.id).1 }
    }

    @Test func aWebDeviceHasASubscription() throws {
        let setup = try Setup()
        #expect(setup.subscription.string("endpoint") == "https://fcm.googleapis.com/fcm/send/" + setup.device.token)
        #expect(Base64URLCodec.decode(setup.subscription.string("keys.p256dh") ?? "")?.count == 65)
        #expect(Base64URLCodec.decode(setup.subscription.string("keys.auth") ?? "")?.count == 16)
        // Only web devices carry one.
        let phone = try setup.api.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"android"}"#, status: 201)
        #expect(phone.at("webPush") == nil)
        let refused = setup.api.call(
            "POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"web","applicationServerKey":"AAAA"}"#)
        #expect(refused.status == 400)
    }

    @Test func aPushReachesTheInboxDecrypted() throws {
        let setup = try Setup()
        let response = try setup.push(try setup.body("Goal! 3-0"), extra: [("Urgency", "high"), ("Topic", "score")])
        #expect(response.status == 201, "\(response.bodyText)")
        #expect(response.header("Location")?.hasPrefix("https://fcm.googleapis.com/fcm/message/") == true)
        let inbox = try setup.inbox()
        #expect(inbox.count == 1)
        let delivery = try #require(inbox.first)
        #expect(delivery.message?.content.webpush?.rawData == Array("Goal! 3-0".utf8))
        #expect(delivery.priority == .high)
        #expect(delivery.collapseKey == "score")
        #expect(delivery.ttlSeconds == 60)
        let payload = delivery.payload(on: .web)
        #expect(payload.string("rawData") == "Goal! 3-0")
        // The control API's inbox shows it too.
        let listed = try setup.api.json("GET", "/emulator/v1/projects/demo-fcm-emu/devices/\(setup.device.id)/inbox")
        #expect(listed.string("deliveries.0.payload.rawData") == "Goal! 3-0")
        #expect(listed.string("deliveries.0.api") == "webpush")
    }

    @Test func anOfflineDeviceGetsItOnReconnectAndTopicsCollapse() throws {
        let setup = try Setup(state: "offline")
        #expect(try setup.push(try setup.body("one"), extra: [("Topic", "t")]).status == 201)
        #expect(try setup.push(try setup.body("two"), extra: [("Topic", "t")]).status == 201)
        #expect(try setup.inbox().isEmpty)
        _ = try setup.api.json("PATCH", "/emulator/v1/projects/demo-fcm-emu/devices/\(setup.device.id)", #"{"state":"foreground"}"#)
        let inbox = try setup.inbox()
        #expect(inbox.map { $0.message?.content.webpush?.rawData } == [Array("two".utf8)])
    }

    @Test func headerRules() throws {
        let setup = try Setup()
        let body = try setup.body("x")
        #expect(try setup.push(body, ttl: nil).status == 400)
        #expect(try setup.push(body, ttl: "soon").status == 400)
        #expect(try setup.push(body, extra: [("Urgency", "urgent")]).status == 400)
        #expect(try setup.push(body, extra: [("Topic", String(repeating: "a", count: 33))]).status == 400)
        #expect(try setup.push([UInt8](repeating: 0, count: 4097)).status == 413)
        #expect(try setup.push(body, path: "/fcm/send/nope").status == 404)
        // A body that does not decrypt is refused, and nothing is delivered.
        var bad = body
        bad[bad.count - 1] ^= 1
        let refused = try setup.push(bad)
        #expect(refused.status == 400)
        #expect(refused.bodyText.contains("did not decrypt"))
        #expect(try setup.inbox().isEmpty)
        // The legacy API keeps /fcm/send itself.
        let legacy = setup.api.responder.respond(HTTPRequest(method: "POST", target: "/fcm/send", headers: [], body: "{}"))
        #expect(legacy.status == 401)
    }

    @Test func vapidRules() throws {
        let setup = try Setup()
        let body = try setup.body("x")
        #expect(try setup.push(body, vapid: .some(nil)).status == 401)
        // Another key than the one the subscription was bound to: FCM's 403.
        let other = try setup.push(body, vapid: try WebPushPublisher.vapid(P256.Signing.PrivateKey()))
        #expect(other.status == 403)
        #expect(other.bodyText.hasPrefix("the key in the authorization header does not correspond"))
        #expect(try setup.push(body, vapid: try WebPushPublisher.vapid(setup.vapidKey, aud: "https://example.com")).status == 403)
        #expect(try setup.push(body, vapid: try WebPushPublisher.vapid(setup.vapidKey, exp: 1000)).status == 403)
        let tooLong = try WebPushPublisher.vapid(setup.vapidKey, exp: Int64(Date().timeIntervalSince1970) + 25 * 3600)
        #expect(try setup.push(body, vapid: tooLong).status == 403)
        // A signature from another key under this one's k=.
        let forged = try WebPushPublisher.vapid(P256.Signing.PrivateKey())
            .replacingOccurrences(of: #"k=.*"#, with: "k=" + Base64URLCodec.encode(Array(setup.vapidKey.publicKey.x963Representation)),
                options: .regularExpression)
        #expect(try setup.push(body, vapid: forged).status == 403)
        #expect(try setup.push(body, vapid: "vapid t=abc, k=def").status == 403)
        #expect(try setup.inbox().isEmpty)
    }

    @Test func aGoneSubscriptionAnswers410() throws {
        let setup = try Setup()
        _ = setup.api.call("POST", "/emulator/v1/projects/demo-fcm-emu/devices/\(setup.device.id):uninstall")
        #expect(try setup.push(try setup.body("x")).status == 410)
        let other = try Setup()
        _ = other.api.call("DELETE", "/emulator/v1/projects/demo-fcm-emu/devices/\(other.device.id)")
        let gone = try other.push(try other.body("x"))
        #expect(gone.status == 410)
        #expect(gone.bodyText == "push subscription has unsubscribed or expired.\n")
    }
}
