// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// One MCS connection's life, as a state machine that returns what to do (docs/receivers.md,
/// "MCS"): a login checked against the check-in, heartbeats answered, deliveries written as
/// data messages and acknowledged by persistent id, a close. `MCSConnectionHandler` performs
/// the effects on a channel; the rules are the protocol's as Chromium's GCM client speaks it
/// (google_apis/gcm/engine/mcs_client.cc, connection_handler_impl.cc).
struct MCSConnection {
    enum State {
        /// The first message must be a login.
        case awaitingLogin
        case online(androidId: UInt64, connection: UInt64)
        case closed
    }

    enum Effect {
        case send(MCSMessage)
        /// Logged in: wake this connection when its receiver has work, and ping it every
        /// `heartbeatMillis` (what its login's `heartbeat_stat` asked for, else the server's).
        case loggedIn(androidId: UInt64, connection: UInt64, heartbeatMillis: Int64)
        /// Send `Close` (when the stream is still in order) and close the socket.
        case close(reason: String, sendClose: Bool)
    }

    private(set) var state = State.awaitingLogin
    let emulator: Emulator
    let encrypt: @Sendable (_ plaintext: [UInt8], _ p256dh: [UInt8], _ auth: [UInt8]) -> AESGCMEncryption.Result?
    /// How often the server pings a client that asked for no interval.
    var heartbeatMillis: Int64 = 300_000
    /// Messages read from the client, the login included: `last_stream_id_received` in what the
    /// server sends (mcs.proto; Chromium counts them the same way).
    private var received: Int32 = 0

    init(emulator: Emulator, encrypt: @escaping @Sendable ([UInt8], [UInt8], [UInt8]) -> AESGCMEncryption.Result?) {
        self.emulator = emulator
        self.encrypt = encrypt
    }

    var androidId: UInt64? {
        if case .online(let id, _) = state { return id }
        return nil
    }

    mutating func receive(_ message: MCSMessage) -> [Effect] {
        received &+= 1
        switch (state, message) {
        case (.closed, _):
            return []
        case (.awaitingLogin, .loginRequest(let login)):
            return logIn(login)
        case (.awaitingLogin, _):
            state = .closed
            return [.close(reason: "a message before the login", sendClose: false)]
        case (.online, .heartbeatPing):
            return [.send(.heartbeatAck(MCSHeartbeat(lastStreamIdReceived: received)))]
        case (.online(let androidId, _), .iqStanza(let iq)):
            if let acked = iq.selectiveAckIds, !acked.isEmpty { emulator.acknowledge(androidId: androidId, ids: acked) }
            return []
        case (.online, .close):
            state = .closed
            return [.close(reason: "the client closed", sendClose: false)]
        case (.online, .loginRequest):
            state = .closed
            return [.close(reason: "a second login on one connection", sendClose: true)]
        case (.online, _):
            // Heartbeat acks, stream errors, upstream and the stanzas a receiver never sends: read and dropped, as Chromium's client does.
            return []
        }
    }

    private mutating func logIn(_ login: MCSLoginRequest) -> [Effect] {
        guard let androidId = UInt64(login.user), let token = UInt64(login.authToken) else {
            state = .closed
            return [.send(.loginResponse(Self.refusal(login.id, "the login's user and auth_token must be the check-in's decimal id and token"))),
                .close(reason: "a malformed login", sendClose: true)]
        }
        do throws(ReceiverRefusal) {
            let connection = try emulator.receiverLogin(androidId: androidId, securityToken: token, received: login.receivedPersistentIds)
            state = .online(androidId: androidId, connection: connection)
            var response = MCSLoginResponse(id: login.id)
            response.jid = "\(androidId)@mcs.android.com"
            response.lastStreamIdReceived = received
            response.serverTimestamp = emulator.now.millis
            // The client asks how often the server should ping it (firebase-messaging: every 10 s);
            // kept between 1 s and an hour.
            let asked = login.heartbeatIntervalMillis.map { min(max(Int64($0), 1000), 3_600_000) }
            return [
                .send(.loginResponse(response)),
                .loggedIn(androidId: androidId, connection: connection, heartbeatMillis: asked ?? heartbeatMillis),
            ] + pump()
        } catch {
            state = .closed
            return [.send(.loginResponse(Self.refusal(login.id, error.message))), .close(reason: "login refused: \(error.message)", sendClose: true)]
        }
    }

    /// A login answered with an error (mcs.proto `ErrorInfo`); the client counts it and logs in again later.
    private static func refusal(_ id: String, _ message: String) -> MCSLoginResponse {
        var response = MCSLoginResponse(id: id)
        response.error = MCSErrorInfo(code: 401, message: message)
        return response
    }

    /// What the receiver is owed now, as data messages; a close when the connection was
    /// superseded or disconnected by the world.
    mutating func pump() -> [Effect] {
        guard case .online(let androidId, let connection) = state else { return [] }
        guard let owed = emulator.receiverOutgoing(androidId: androidId, connection: connection) else {
            state = .closed
            return [.close(reason: "another connection logged in, or this one acknowledged nothing for too long", sendClose: true)]
        }
        return owed.compactMap { delivery in stanza(delivery).map { .send(.dataMessage($0)) } }
    }

    /// The server's heartbeat (mcs.proto `HeartbeatPing`), carrying how many messages it read:
    /// the client answers with a `HeartbeatAck`.
    func heartbeat() -> [Effect] {
        guard case .online = state else { return [] }
        return [.send(.heartbeatPing(MCSHeartbeat(lastStreamIdReceived: received)))]
    }

    mutating func disconnected() {
        if case .online(let androidId, let connection) = state { emulator.receiverDisconnected(androidId: androidId, connection: connection) }
        state = .closed
    }

    /// A delivery as the data message a web receiver decrypts (docs/receivers.md, "What a real
    /// receiver gets"): `aesgcm` to its keys, with the salt and the sender's key beside the body
    /// in the app data, padded base64url as firebase-messaging decodes them.
    private func stanza(_ owed: ReceiverDelivery) -> MCSDataMessage? {
        let link = owed.link
        var message = MCSDataMessage(from: link.sender, category: link.category)
        message.id = String(owed.persistentId.suffix(8))
        message.persistentId = owed.persistentId
        message.sent = owed.delivery.time.millis
        message.ttl = Int32(clamping: owed.delivery.ttlSeconds)
        message.lastStreamIdReceived = received
        var appData: [(String, String)] = [("subtype", link.subtype)]
        guard let sent = owed.delivery.message else {
            // The deleted-messages signal carries no payload (firebase-messaging checks message_type first).
            message.appData = [("message_type", "deleted_messages")] + appData
            return message
        }
        if let relayed = sent.content.webpush?.relayed {
            appData.insert(("google.source", "webpush"), at: 0)
            if relayed.contentEncoding == "aesgcm", let salt = relayed.salt, let key = relayed.senderKey {
                appData += [("encryption", "salt=" + Self.padded(salt)), ("crypto-key", "dh=" + Self.padded(key))]
            } else {
                appData.append(("content-encoding", relayed.contentEncoding))
            }
            message.rawData = relayed.body
            message.appData = appData
            return message
        }
        let plaintext = Array(owed.delivery.receiverPayload(sent).encoded().utf8)
        guard let encrypted = encrypt(plaintext, link.p256dh, link.auth) else { return nil }
        message.appData = [("google.source", "webpush")] + appData + [
            ("encryption", "salt=" + Self.padded(encrypted.salt)), ("crypto-key", "dh=" + Self.padded(encrypted.senderPublicKey)),
        ]
        message.rawData = encrypted.ciphertext
        return message
    }

    /// Base64url with its padding: firebase-messaging decodes these without re-padding.
    static func padded(_ bytes: [UInt8]) -> String {
        let text = Base64URLCodec.encode(bytes)
        return text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
    }
}
