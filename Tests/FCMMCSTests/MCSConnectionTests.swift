// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
@testable import FCMMCS
import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The MCS connection on an `EmbeddedChannel` (no TLS, no sockets): the frames a receiver reads
/// (docs/receivers.md, "Delivery over MCS").
@Suite("MCS connection, without sockets")
struct MCSConnectionTests {
    struct Wire {
        let channel = EmbeddedChannel()
        let emulator: Emulator
        let androidId: UInt64
        let securityToken: UInt64
        let token: String
        var receiverKey = P256.KeyAgreement.PrivateKey()
        let auth: [UInt8] = Array(repeating: 5, count: 16)
        var decoder = MCSFrameDecoder(maxFrameBytes: 1 << 20)

        /// The same receiver on a new connection.
        func reconnected() throws -> Wire { try Wire(from: self) }

        private init(from other: Wire) throws {
            emulator = other.emulator
            androidId = other.androidId
            securityToken = other.securityToken
            token = other.token
            receiverKey = other.receiverKey
            try Self.connect(channel, emulator: emulator, configuration: MCSServer.Configuration())
        }

        private static func connect(_ channel: EmbeddedChannel, emulator: Emulator, configuration: MCSServer.Configuration) throws {
            try MCSServer.configureConnection(
                channel.pipeline.syncOperations, emulator: emulator, router: MCSRouter(emulator: emulator), configuration: configuration,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        }

        init(emulator: Emulator = Emulator(), maxFrameBytes: Int = MCSServer.defaultMaxFrameBytes) throws {
            self.emulator = emulator
            let checkin = try emulator.checkin(androidId: nil, securityToken: nil)
            androidId = checkin.androidId
            securityToken = checkin.securityToken
            let gcm = try emulator.registerGCM(
                androidId: androidId, securityToken: securityToken, app: "org.chromium.linux", subtype: "wp:test#1", sender: "BDOU99")
            let installation = try emulator.createInstallation(project: DemoProject.id, fid: "fYUw2cKvjQoY/PSNOsACiYQ=", appId: "1:1:web:1")
            token = try emulator.createRegistration(
                project: DemoProject.id, authToken: installation.authToken,
                web: WebRegistration(gcmToken: gcm, p256dh: Array(receiverKey.publicKey.x963Representation), auth: auth, applicationServerKey: nil)
            ).token
            var configuration = MCSServer.Configuration()
            configuration.maxFrameBytes = maxFrameBytes
            try Self.connect(channel, emulator: emulator, configuration: configuration)
        }

        func send(_ message: MCSMessage, version: Bool = false) throws {
            var buffer = channel.allocator.buffer(capacity: 64)
            if version { buffer.writeInteger(MCSFrame.version) }
            message.encode(into: &buffer)
            try channel.writeInbound(buffer)
        }

        func login(token: UInt64? = nil, received: [String] = [], heartbeatMillis: Int32? = nil) throws {
            var login = MCSLoginRequest()
            login.heartbeatIntervalMillis = heartbeatMillis
            login.id = "94.0.4606.51"
            login.domain = "mcs.android.com"
            login.user = String(androidId)
            login.resource = String(androidId)
            login.authToken = String(token ?? securityToken)
            login.receivedPersistentIds = received
            try send(.loginRequest(login), version: true)
        }

        /// What the server wrote since the last call, decoded.
        mutating func received() throws -> [MCSMessage] {
            channel.embeddedEventLoop.run()
            var bytes = ByteBuffer()
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&buffer) }
            var out: [MCSMessage] = []
            while let frame = try decoder.next(&bytes) { out.append(try MCSMessage(frame)) }
            return out
        }

        func sendData(_ value: String, ttl: Int64? = nil) throws {
            _ = try emulator.send(
                SendRequest(target: .token(token), content: MessageContent(data: [("k", value)], ttlSeconds: ttl), api: .v1), from: DemoProject.id)
        }

        /// The plaintext of a data message, decrypted with the receiver's key as firebase-messaging does.
        func plaintext(_ message: MCSDataMessage) throws -> String {
            let app = Dictionary(message.appData, uniquingKeysWith: { a, _ in a })
            let salt = try #require(app["encryption"].flatMap { Base64URLCodec.decode($0.dropFirst(5)) })
            let key = try #require(app["crypto-key"].flatMap { Base64URLCodec.decode($0.dropFirst(3)) })
            #expect(app["encryption"]?.hasSuffix("==") == true && app["crypto-key"]?.hasSuffix("=") == true)
            let result = AESGCMEncryption.Result(salt: salt, senderPublicKey: key, ciphertext: message.rawData ?? [])
            return String(decoding: try AESGCMEncryptionTests.decrypt(result, receiver: receiverKey, auth: auth), as: UTF8.self)
        }
    }

    func dataMessages(_ messages: [MCSMessage]) -> [MCSDataMessage] {
        messages.compactMap { if case .dataMessage(let m) = $0 { m } else { nil } }
    }

    @Test func aLoginIsAnsweredThenDeliveriesArriveEncryptedToTheReceiversKeys() throws {
        var wire = try Wire()
        try wire.sendData("stored")
        try wire.login()
        let first = try wire.received()
        guard case .loginResponse(let response) = first.first else {
            Issue.record("no login response: \(first)")
            return
        }
        #expect(response.id == "94.0.4606.51")
        #expect(response.error == nil)
        let stored = dataMessages(first)
        #expect(stored.count == 1)
        #expect(try wire.plaintext(stored[0]).contains(#""data":{"k":"stored"}"#))
        #expect(stored[0].category == "org.chromium.linux" && stored[0].from == "BDOU99")
        #expect(stored[0].appData.contains { $0 == ("subtype", "wp:test#1") })
        // Online now: the next send is written at once.
        try wire.sendData("live")
        let live = dataMessages(try wire.received())
        #expect(try live.map { try wire.plaintext($0) }.allSatisfy { $0.contains(#""k":"live""#) })
        #expect(try wire.emulator.device(wire.token, projectId: DemoProject.id).state == .foreground)
    }

    @Test func heartbeatsAreAnsweredAndAcksStopRedelivery() throws {
        var wire = try Wire()
        try wire.login()
        _ = try wire.received()
        try wire.send(.heartbeatPing(MCSHeartbeat()))
        guard case .heartbeatAck = try wire.received().first else {
            Issue.record("no heartbeat ack")
            return
        }
        try wire.sendData("1")
        try wire.sendData("2")
        let sent = dataMessages(try wire.received())
        #expect(sent.count == 2)
        try wire.send(.iqStanza(.acknowledging([sent[0].persistentId ?? ""])))
        try wire.channel.close().wait()
        #expect(try wire.emulator.device(wire.token, projectId: DemoProject.id).state == .offline)
        // The next connection gets what was not acknowledged, and only that.
        var next = try wire.reconnected()
        try next.login()
        let again = dataMessages(try next.received())
        #expect(again.map(\.persistentId) == [sent[1].persistentId])
    }

    @Test func theServerPingsAsOftenAsTheLoginAsked() throws {
        var wire = try Wire()
        try wire.login(heartbeatMillis: 10_000)
        _ = try wire.received()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(try wire.received().isEmpty)
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        guard case .heartbeatPing(let ping) = try wire.received().first else {
            Issue.record("no heartbeat ping")
            return
        }
        // It has read the login: the one message received.
        #expect(ping.lastStreamIdReceived == 1)
        try wire.channel.close().wait()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(try wire.received().isEmpty)
    }

    @Test func aWrongTokenGetsALoginErrorAndAClose() throws {
        var wire = try Wire()
        try wire.login(token: 1)
        let answer = try wire.received()
        guard case .loginResponse(let response) = answer.first, case .close = answer.last else {
            Issue.record("not an error and a close: \(answer)")
            return
        }
        #expect(response.error?.code == 401)
        #expect(!wire.channel.isActive)
    }

    @Test func dataBeforeTheLoginClosesTheConnection() throws {
        var wire = try Wire()
        try wire.send(.heartbeatPing(MCSHeartbeat()), version: true)
        _ = try wire.received()
        #expect(!wire.channel.isActive)
    }

    @Test func aMessageOverTheCapGetsACloseBeforeItsBytesArrive() throws {
        var wire = try Wire(maxFrameBytes: 1024)
        // Version, tag 2, and a size of 100,000: nothing more is sent.
        try wire.channel.writeInbound(ByteBuffer(bytes: [41, 2, 0xA0, 0x8D, 0x06]))
        guard case .close = try wire.received().last else {
            Issue.record("no close")
            return
        }
        #expect(!wire.channel.isActive)
    }

    @Test func aReceiverThatNeverAcknowledgesGetsABoundedBatchAndIsClosed() throws {
        var wire = try Wire()
        // 10,000 messages while away: FCM keeps 100 (then the deleted-messages signal).
        for i in 0..<10_000 { try wire.sendData(String(i)) }
        #expect(try wire.emulator.device(wire.token, projectId: DemoProject.id).storedCount <= 100)
        try wire.login()
        let first = dataMessages(try wire.received())
        #expect(first.count <= 101)
        #expect(first.first?.appData.contains { $0 == ("message_type", "deleted_messages") } == true)
        // Online and never acknowledging: closed at the unacknowledged cap, the rest stored.
        for i in 0..<1000 { try wire.sendData("more \(i)") }
        let more = try wire.received()
        #expect(dataMessages(more).count + first.count <= 256)
        guard case .close = more.last else {
            Issue.record("no close")
            return
        }
        #expect(!wire.channel.isActive)
        #expect(try wire.emulator.device(wire.token, projectId: DemoProject.id).state == .offline)
    }
}
