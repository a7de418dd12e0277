// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// FCM registrations for web receivers, on `fcmregistrations.googleapis.com` (docs/receivers.md,
/// "Registration"): a Web Push subscription's keys and endpoint, with an installation's auth
/// token, become an FCM registration token that the HTTP v1 API sends to. Shapes from the
/// Firebase JS SDK (packages/messaging/src/internals/requests.ts) and firebase-messaging 0.4.5.
struct RegistrationsFront: Sendable {
    let emulator: Emulator
    static let service = "fcmregistrations.googleapis.com"
    /// Where Chrome's subscriptions point: the id after it is the GCM registration token.
    static let endpointPrefix = "https://fcm.googleapis.com/fcm/send/"

    func register(into router: inout Router) {
        router.add("POST", "/v1/projects/{project}/registrations", api: .registrations) { request, p in
            create(request, project: p["project"] ?? "")
        }
        router.add("PATCH", "/v1/projects/{project}/registrations/{token}", api: .registrations) { request, p in
            update(request, project: p["project"] ?? "", token: p["token"] ?? "")
        }
        router.add("DELETE", "/v1/projects/{project}/registrations/{token}", api: .registrations) { request, p in
            delete(request, project: p["project"] ?? "", token: p["token"] ?? "")
        }
    }

    /// `x-goog-firebase-installations-auth`: `FIS <token>` from the JS SDK, the bare token from
    /// firebase-messaging.
    private static func authToken(_ request: HTTPRequest) -> String? {
        guard let value = request.header("x-goog-firebase-installations-auth")?.trimming(), !value.isEmpty else {
            return nil
        }
        return value.hasPrefix("FIS ") ? String(value.dropFirst(4)) : value
    }

    private static let missingAuth = ReceiverRefusal.unauthenticated(
        "Request is missing required authentication credential. Expected x-goog-firebase-installations-auth.")

    /// What a creation and an update both carry: the installation's auth token, the `web` object
    /// as sent, and its keys decoded; or the answer that refuses them.
    private enum Registering {
        case valid(auth: String, web: JSONValue, keys: WebRegistration)
        case refused(HTTPResponse)
    }

    private static func registering(_ request: HTTPRequest) -> Registering {
        if let refused = ReceiverAPIError.checkAPIKey(request, service: service) { return .refused(refused) }
        guard let auth = authToken(request) else { return .refused(ReceiverAPIError.response(missingAuth)) }
        switch ReceiverAPIError.object(request) {
        case .failure(let refusal): return .refused(ReceiverAPIError.response(refusal))
        case .success(let body):
            guard let web = body["web"], web.objectValue != nil else {
                return .refused(ReceiverAPIError.response(.invalid("web is required", field: "web")))
            }
            switch keys(web) {
            case .success(let keys): return .valid(auth: auth, web: web, keys: keys)
            case .failure(let refusal): return .refused(ReceiverAPIError.response(refusal))
            }
        }
    }

    private func create(_ request: HTTPRequest, project: String) -> HTTPResponse {
        let auth: String
        let web: JSONValue
        let keys: WebRegistration
        switch Self.registering(request) {
        case .valid(let a, let w, let k): (auth, web, keys) = (a, w, k)
        case .refused(let answer): return answer
        }
        do throws(ReceiverRefusal) {
            let made = try emulator.createRegistration(project: project, authToken: auth, web: keys)
            var echoed: [(String, JSONValue)] = [
                ("endpoint", web["endpoint"] ?? .null), ("p256dh", web["p256dh"] ?? .null), ("auth", web["auth"] ?? .null),
            ]
            if let key = web["applicationPubKey"], key.stringValue != nil { echoed.append(("applicationPubKey", key)) }
            return V1Response.json(
                .object([
                    ("name", .string("projects/\(made.projectId)/registrations/\(made.token)")), ("token", .string(made.token)),
                    ("web", .object(echoed)),
                ]))
        } catch {
            return ReceiverAPIError.response(error)
        }
    }

    /// The subscription's endpoint and keys, checked: a P-256 point (65 bytes) and a 16-byte
    /// secret (RFC 8291 §3.2), base64url with or without padding.
    private static func keys(_ web: JSONValue) -> Result<WebRegistration, ReceiverRefusal> {
        guard let endpoint = web["endpoint"]?.stringValue, endpoint.hasPrefix(endpointPrefix), endpoint.utf8.count <= 4096 else {
            return .failure(.invalid("web.endpoint must be \(endpointPrefix)<subscription>", field: "web.endpoint"))
        }
        guard let p256dh = web["p256dh"]?.stringValue.flatMap({ Base64URLCodec.decode($0, maxBytes: 256) }), p256dh.count == 65, p256dh.first == 4
        else {
            return .failure(.invalid("web.p256dh must be an uncompressed P-256 point (65 bytes, base64url)", field: "web.p256dh"))
        }
        guard let auth = web["auth"]?.stringValue.flatMap({ Base64URLCodec.decode($0, maxBytes: 64) }), auth.count == 16 else {
            return .failure(.invalid("web.auth must be 16 bytes, base64url", field: "web.auth"))
        }
        var serverKey: [UInt8]?
        if let text = web["applicationPubKey"]?.stringValue {
            guard let key = Base64URLCodec.decode(text, maxBytes: 256), key.count == 65, key.first == 4 else {
                return .failure(.invalid("web.applicationPubKey must be an uncompressed P-256 point (65 bytes, base64url)", field: "web.applicationPubKey"))
            }
            serverKey = key
        }
        return .success(
            WebRegistration(gcmToken: String(endpoint.dropFirst(endpointPrefix.utf8.count)), p256dh: p256dh, auth: auth, applicationServerKey: serverKey))
    }

    /// The JS SDK's token update: the same body as a creation; the answer names the token, unchanged.
    private func update(_ request: HTTPRequest, project: String, token: String) -> HTTPResponse {
        switch Self.registering(request) {
        case .refused(let answer): return answer
        case .valid(let auth, let web, let keys):
            do throws(ReceiverRefusal) {
                try emulator.updateRegistration(project: project, authToken: auth, token: token, web: keys)
                return V1Response.json(
                    .object([("name", .string("projects/\(project)/registrations/\(token)")), ("token", .string(token)), ("web", web)]))
            } catch {
                return ReceiverAPIError.response(error)
            }
        }
    }

    private func delete(_ request: HTTPRequest, project: String, token: String) -> HTTPResponse {
        if let refused = ReceiverAPIError.checkAPIKey(request, service: Self.service) { return refused }
        guard let auth = Self.authToken(request) else { return ReceiverAPIError.response(Self.missingAuth) }
        do throws(ReceiverRefusal) {
            try emulator.deleteRegistration(project: project, authToken: auth, token: token)
            return V1Response.json(.object([]))
        } catch {
            return ReceiverAPIError.response(error)
        }
    }
}
