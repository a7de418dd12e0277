// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport

/// RFC 8030 publication to a web device's subscription: `POST /fcm/send/{id}`, where Chrome's
/// subscriptions point (docs/receivers.md). `/fcm/send` itself is the legacy API's; a path with
/// a further segment is Web Push. Answers are short plain text, FCM's own where docs/receivers.md
/// quotes them.
struct WebPushFront: Sendable {
    let emulator: Emulator
    let wallSeconds: @Sendable () -> Int64

    /// "A push service MAY ... limit the size of push messages"; FCM takes 4096 bytes of body,
    /// which RFC 8291 §4 also makes the largest an application server sends.
    static let maxBody = 4096
    /// FCM keeps a message at most 28 days (docs/simulation.md, "Lifespan (TTL)").
    static let maxTTL = EmulatorSettings.maxTTLSeconds

    func register(into router: inout Router) {
        router.mount(.webpush, ["/fcm/send/*"], dialect: Self.dialect)
        router.add("POST", "/fcm/send/{subscription}") { request, parameters in
            push(request, subscription: parameters["subscription"] ?? "")
        }
    }

    static let dialect = Dialect(
        notFound: { request, allowed in
            allowed.isEmpty
                ? text(404, "No push subscription at \(String(request.path.prefix(200)))\n")
                : text(405, "A push message is sent with POST (RFC 8030 §5)\n", headers: [("Allow", allowed.joined(separator: ", "))])
        },
        tooLarge: { _ in tooLarge }, refused: GoogleFrontEnd.refused,
        injected: { status in text(status, HTTPResponse.reasonPhrase(status) + "\n") })

    static let tooLarge = text(413, "The push message's body is larger than \(maxBody) bytes (RFC 8030 §7.2)\n")

    static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: body)
        response.headers += headers
        return response
    }

    func push(_ request: HTTPRequest, subscription id: String) -> HTTPResponse {
        // A simulated web device's subscription (the emulator decrypts, as its browser), or a real
        // receiver's (relayed as encrypted, docs/receivers.md).
        let subscription: WebPushSubscription?
        let boundKey: [UInt8]?
        let projectId: String
        let token: String
        switch emulator.webPushTarget(id) {
        case .unknown: return Self.text(404, "No push subscription has this id\n")
        // FCM's words for an expired subscription.
        case .gone: return Self.text(410, "push subscription has unsubscribed or expired.\n")
        case .active(let s, let p, let t): (subscription, boundKey, projectId, token) = (s, s.applicationServerKey, p, t)
        case .relay(let link, let p, let t): (subscription, boundKey, projectId, token) = (nil, link.applicationServerKey, p, t)
        }
        let view = HTTPRequestView(authorization: request.header("Authorization"), cryptoKey: request.header("Crypto-Key"))
        do throws(VAPID.Refusal) {
            let (jwt, key) = try VAPID.credentials(view)
            try VAPID.verify(token: jwt, key: key, nowSeconds: wallSeconds())
            if let boundKey, boundKey != key { throw .wrongKey }
        } catch {
            switch error {
            // FCM's words when there is no Authorization at all.
            case .missing: return Self.text(401, "authorization header must be specified.\n")
            case .invalid(let reason): return Self.text(403, reason + "\n")
            // FCM's words for a key other than the subscription's.
            case .wrongKey:
                return Self.text(
                    403,
                    "the key in the authorization header does not correspond to the sender ID used to subscribe this user. "
                        + "Please ensure you are using the correct sender ID and server Key from the Firebase console.\n")
            }
        }
        // RFC 8030 §5.2: TTL is required, a number of seconds.
        guard let ttlText = request.header("TTL")?.trimming(), !ttlText.isEmpty else {
            return Self.text(400, "The TTL header is required (RFC 8030 §5.2)\n")
        }
        guard ttlText.utf8.count <= 12, ttlText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let ttl = Int64(ttlText) else {
            return Self.text(400, "TTL must be a whole number of seconds (RFC 8030 §5.2)\n")
        }
        // RFC 8030 §5.3.
        let urgency = request.header("Urgency")?.trimming().lowercased() ?? "normal"
        guard ["very-low", "low", "normal", "high"].contains(urgency) else {
            return Self.text(400, "Urgency must be very-low, low, normal or high (RFC 8030 §5.3)\n")
        }
        // RFC 8030 §5.4: at most 32 characters of the base64url alphabet.
        let topic = request.header("Topic")?.trimming()
        if let topic {
            let alphabet = { (c: UInt8) in
                (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
            }
            guard !topic.isEmpty, topic.utf8.count <= 32, topic.utf8.allSatisfy(alphabet) else {
                return Self.text(400, "Topic must be 1–32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4)\n")
            }
        }
        guard request.body.count <= Self.maxBody else { return Self.tooLarge }
        var plaintext: [UInt8]?
        var relayed: RelayedPush?
        do throws(WebPushDecryption.Failure) {
            if let subscription {
                plaintext = try decrypt(request, subscription: subscription, view: view)
            } else {
                relayed = try relay(request, view: view)
            }
        } catch {
            return Self.text(400, error.reason + "\n")
        }
        var headers: StringPairs = [("TTL", String(min(ttl, Self.maxTTL))), ("Urgency", urgency)]
        if let topic { headers.append(("Topic", topic)) }
        var options = WebpushOptions(headers: headers, rawData: plaintext)
        options.relayed = relayed
        let content = MessageContent(webpush: options)
        do throws(FCMError) {
            let outcome = try emulator.send(SendRequest(target: .token(token), content: content, api: .webpush), from: projectId)
            // RFC 8030 §5: the push message resource, `Location`; `%` in the id is escaped.
            let location = "https://fcm.googleapis.com/fcm/message/" + outcome.messageId.replacingAll("%", "%25")
            return Self.text(201, "", headers: [("Location", location)])
        } catch {
            switch error.code {
            case .unregistered: return Self.text(410, "push subscription has unsubscribed or expired.\n")
            case .deviceMessageRateExceeded, .topicsMessageRateExceeded:
                return Self.text(429, error.message + "\n", headers: error.retryAfterSeconds.map { [("Retry-After", String($0))] } ?? [])
            case .unavailable: return Self.text(503, error.message + "\n")
            case .internalError: return Self.text(500, error.message + "\n")
            default: return Self.text(400, error.message + "\n")
            }
        }
    }

    /// A push to a real receiver, kept encrypted with what its receiver needs to decrypt it; nil
    /// for a push with no body.
    private func relay(_ request: HTTPRequest, view: HTTPRequestView) throws(WebPushDecryption.Failure) -> RelayedPush? {
        guard !request.body.isEmpty else { return nil }
        switch request.header("Content-Encoding")?.trimming().lowercased() {
        case "aes128gcm":
            // RFC 8188 §2.1: salt (16), rs (4), idlen (1), keyid (65 for Web Push, RFC 8291 §4), then a record.
            guard request.body.count >= 16 + 4 + 1 + 65 + 17 else { throw WebPushDecryption.Failure("The aes128gcm body is shorter than its header") }
            return RelayedPush(contentEncoding: "aes128gcm", body: request.body, salt: nil, senderKey: nil)
        case "aesgcm":
            let encryption = HTTPRequestView(authorization: nil, cryptoKey: request.header("Encryption"))
            guard let dh = view.cryptoKeyParameter("dh").flatMap({ Base64URLCodec.decode($0, maxBytes: 256) }), dh.count == 65 else {
                throw WebPushDecryption.Failure("aesgcm needs the sender's key in Crypto-Key: dh=")
            }
            guard let salt = encryption.cryptoKeyParameter("salt").flatMap({ Base64URLCodec.decode($0, maxBytes: 64) }), salt.count == 16 else {
                throw WebPushDecryption.Failure("aesgcm needs Encryption: salt= (16 bytes)")
            }
            return RelayedPush(contentEncoding: "aesgcm", body: request.body, salt: salt, senderKey: dh)
        default:
            throw WebPushDecryption.Failure("Content-Encoding must be aes128gcm (RFC 8291 §4) or aesgcm")
        }
    }

    /// The body's plaintext by its `Content-Encoding` (docs/receivers.md, "Encryption"); nil for
    /// a push with no body (RFC 8030 §5: a push message may carry no payload).
    private func decrypt(_ request: HTTPRequest, subscription: WebPushSubscription, view: HTTPRequestView) throws(WebPushDecryption.Failure)
        -> [UInt8]?
    {
        guard !request.body.isEmpty else { return nil }
        switch request.header("Content-Encoding")?.trimming().lowercased() {
        case "aes128gcm":
            return try WebPushDecryption.aes128gcm(request.body, subscription: subscription)
        case "aesgcm":
            let encryption = HTTPRequestView(authorization: nil, cryptoKey: request.header("Encryption"))
            guard let dh = view.cryptoKeyParameter("dh").flatMap({ Base64URLCodec.decode($0, maxBytes: 256) }) else {
                throw WebPushDecryption.Failure("aesgcm needs the sender's key in Crypto-Key: dh=")
            }
            guard let salt = encryption.cryptoKeyParameter("salt").flatMap({ Base64URLCodec.decode($0, maxBytes: 64) }) else {
                throw WebPushDecryption.Failure("aesgcm needs Encryption: salt=")
            }
            let rs = encryption.cryptoKeyParameter("rs").map { Int($0) ?? -1 } ?? 4096
            return try WebPushDecryption.aesgcm(request.body, subscription: subscription, senderKey: dh, salt: salt, recordSize: rs)
        default:
            throw WebPushDecryption.Failure("Content-Encoding must be aes128gcm (RFC 8291 §4) or aesgcm")
        }
    }
}
