// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMXMPP
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The CCS connection handler on an `EmbeddedChannel` (no TLS, no sockets): the bytes a client
/// reads, and the timers it starts, moved by hand.
@Suite("XMPP connection handler, without sockets")
struct XMPPHandlerTests {
    /// Counts the reads that reach the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    struct Wire {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        let emulator: Emulator
        let key: String

        init(_ configure: (inout XMPPServer.Configuration) -> Void = { _ in }) throws {
            emulator = Emulator()
            let project = try emulator.createProject(id: "ccs-app", number: "4242")
            key = try #require(project.serverKeys.first)
            var configuration = XMPPServer.Configuration()
            configure(&configuration)
            let router = CCSRouter(emulator: emulator)
            try channel.pipeline.syncOperations.addHandler(reads)
            try XMPPServer.configureConnection(
                channel.pipeline.syncOperations, emulator: emulator, router: router, configuration: configuration,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        }

        func send(_ text: String) throws {
            try channel.writeInbound(channel.allocator.buffer(string: text))
        }

        func received() throws -> String {
            channel.embeddedEventLoop.run()
            var text = ""
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                text += buffer.readString(length: buffer.readableBytes) ?? ""
            }
            return text
        }

        /// Logs in; `restart` is the second stream header, which some libraries open with an XML declaration.
        func login(restart: String = Wire.header) throws {
            try send(Wire.header)
            let credentials = Data("\u{0}4242@gcm.googleapis.com\0\(key)".utf8).base64EncodedString()
            try send("<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(credentials)</auth>")
            try send(restart)
            try send("<iq type='set' id='b1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>r1</resource></bind></iq>")
        }

        static let header =
            "<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"
    }

    @Test func logsInAndKeepsTheConnectionAliveWithWhitespace() throws {
        let wire = try Wire { $0.keepaliveSeconds = 30 }
        try wire.login()
        let login = try wire.received()
        #expect(login.contains("<success xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"/>"))
        #expect(
            login.hasSuffix(
                "<iq type=\"result\" id=\"b1\"><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"><jid>"
                    + "4242@gcm.googleapis.com/r1</jid></bind></iq>"
            ))
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try wire.received() == " ")
    }

    /// RFC 6120 §11.5 allows the XML declaration at the start of every stream.
    @Test func aRestartWithAnXMLDeclarationBinds() throws {
        let wire = try Wire()
        try wire.login(restart: "<?xml version='1.0'?>" + Wire.header)
        #expect(try wire.received().contains("<jid>4242@gcm.googleapis.com/r1</jid>"))
        #expect(wire.channel.isActive)
    }

    /// An error in a restarted stream the server has not answered yet comes
    /// after a stream header of its own (RFC 6120 §4.9.1.1), so the prefix is bound.
    @Test func anErrorBeforeTheServersHeaderFollowsAHeader() throws {
        let wire = try Wire()
        try wire.send(Wire.header)
        try wire.send(
            "<auth mechanism='PLAIN'"
                + " xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(Data("\u{0}4242\0\(wire.key)".utf8).base64EncodedString())</auth>"
        )
        _ = try wire.received()
        try wire.send("<!-- a comment -->")
        let answer = try wire.received()
        #expect(answer.hasPrefix("<stream:stream from=\"gcm.googleapis.com\""))
        #expect(
            answer.hasSuffix(
                "<restricted-xml xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/><text"
                    + " xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\">comments, CDATA and DTDs are not allowed"
                    + "</text></stream:error></stream:stream>"
            ))
        #expect(!wire.channel.isActive)
    }

    @Test func upstreamMessagesArePushedWhenTheCoreHasThem() throws {
        let wire = try Wire()
        let device = try wire.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.x", name: "pixel"), projectId: "ccs-app")
        try wire.login()
        _ = try wire.received()
        try wire.emulator.sendUpstream("pixel", projectId: "ccs-app", data: [("k", "v")], messageId: "u-1", ttlSeconds: 60)
        let pushed = try wire.received()
        #expect(
            pushed
                == #"<message to="4242@gcm.googleapis.com" from="devices@gcm.googleapis.com" type="normal"><gcm"#
                + #" xmlns="google:mobile:data">{"category":"com.x","data":{"k":"v"},"time_to_live":60,"#
                + #""message_id":"u-1","from":"\#(device.token)"}</gcm></message>"#
        )
    }

    @Test func aScheduledDrainSendsControlThenClosesAfterTheGrace() throws {
        let wire = try Wire {
            $0.drainAfterSeconds = 5
            $0.drainGraceMillis = 2000
        }
        try wire.login()
        _ = try wire.received()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(try wire.received().contains(#""control_type":"CONNECTION_DRAINING""#))
        wire.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1999))
        #expect(wire.channel.isActive)
        wire.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(try wire.received() == "</stream:stream>")
        #expect(!wire.channel.isActive)
    }

    /// A client that sends and never reads made the server buffer without bound.
    @Test func aConnectionThatCannotWriteIsNotRead() throws {
        let wire = try Wire()
        try wire.login()
        _ = try wire.received()
        wire.channel.isWritable = false
        wire.channel.pipeline.fireChannelWritabilityChanged()
        let before = wire.reads.count
        wire.channel.read()
        #expect(wire.reads.count == before)
        wire.channel.isWritable = true
        wire.channel.pipeline.fireChannelWritabilityChanged()
        #expect(wire.reads.count == before + 1)
    }

    /// Connections had no handshake or idle timeout.
    @Test func aConnectionThatDoesNotLogInInTimeIsClosed() throws {
        let wire = try Wire { $0.loginTimeoutSeconds = 30 }
        try wire.send(Wire.header)
        _ = try wire.received()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try wire.received().contains("<connection-timeout xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(!wire.channel.isActive)
    }

    /// A client that sends nothing for `idleTimeoutSeconds` gets `connection-timeout`, however
    /// much the server writes to it (whitespace keepalives here): only what the client sends
    /// counts (`ConnectionFloor.Idle.readsOnly`), where HTTP counts both ways.
    @Test func aSilentClientTimesOutThoughTheServerKeepsWriting() throws {
        let wire = try Wire {
            $0.idleTimeoutSeconds = 10
            $0.keepaliveSeconds = 1
        }
        try wire.login()
        _ = try wire.received()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(try wire.received().contains(" "))
        #expect(wire.channel.isActive)
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(try wire.received().contains("<connection-timeout xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(!wire.channel.isActive)
    }

    @Test func whatTheClientSendsKeepsItsConnectionOpen() throws {
        let wire = try Wire { $0.idleTimeoutSeconds = 10 }
        try wire.login()
        for _ in 0..<3 {
            wire.channel.embeddedEventLoop.advanceTime(by: .seconds(6))
            try wire.send(" ")
        }
        #expect(wire.channel.isActive)
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!wire.channel.isActive)
    }

    @Test func aLoggedInConnectionOutlivesTheLoginTimeout() throws {
        let wire = try Wire { $0.loginTimeoutSeconds = 30 }
        try wire.login()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(wire.channel.isActive)
    }

    /// A stopping server ends each stream as CCS would, not with a bare TCP close.
    @Test func stoppingTheServerEndsTheStreamWithSystemShutdown() throws {
        let wire = try Wire()
        try wire.login()
        _ = try wire.received()
        wire.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try wire.received().hasPrefix("<stream:error><system-shutdown xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(!wire.channel.isActive)
    }

    @Test func closingCancelsEveryTimerTheConnectionStarted() throws {
        let wire = try Wire {
            $0.drainAfterSeconds = 5
            $0.keepaliveSeconds = 1
        }
        try wire.login()
        _ = try wire.received()
        try wire.channel.close().wait()
        wire.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(try wire.received().isEmpty)
    }
}
