// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMServer
import FCMTransport
import FCMXMPP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import NIOCore
import NIOEmbedded

extension FCMEmu.Bench {
    /// Which front the in-process request figure drives.
    enum RequestAPI: String, CaseIterable, ExpressibleByArgument {
        case v1, http1, legacy, xmpp
    }

    /// Sends to one online Android device through the code a socket's bytes reach: the HTTP
    /// responder for v1 and legacy (parsing, validation, delivery, rendering the answer), and a
    /// logged-in `CCSConnection` for XMPP (framing, the stanza, the send, the ack). One thread, no
    /// sockets, nothing of the client's side measured: `bench/instructions` runs this under
    /// callgrind at two counts and divides the difference, so start-up cancels out. `http1` is
    /// the v1 send as bytes through the plain port's HTTP/1.1 pipeline on an `EmbeddedChannel`
    /// (NIO's decoder, `HTTP1Connection`, the request handler, the responder, the encoded answer):
    /// everything a socket's bytes reach but the kernel, so its difference from `v1` is the
    /// transport's own cost, which callgrind cannot count on a running server.
    func inProcessSends() throws {
        let emulator = Emulator()
        let device = try emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let send: () -> Bool
        switch api {
        case .v1, .legacy:
            let responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: 1 << 20) { .null }
            let request = api == .v1 ? Self.v1Request(token: device.token) : Self.legacyRequest(token: device.token)
            send = { responder.respond(request).status == 200 }
        case .http1:
            let responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: 1 << 20) { .null }
            send = try Self.wire(responder, request: Self.v1Wire(token: device.token))
        case .xmpp:
            var connection = CCSConnection(emulator: emulator, configuration: CCSConnection.Configuration(laxAuth: true))
            guard Self.logIn(&connection) else { throw ValidationError("the in-process CCS connection was refused") }
            let stanza = Array(Self.ccsStanza(token: device.token).utf8)
            // Each stanza draws one write: its ack.
            send = { connection.receive(stanza).count == 1 }
        }
        // A legacy answer is 200 even when its one result is an error: the inbox says the request
        // is one that delivers before it is repeated.
        guard send(), (try? emulator.inboxCount(device.token, projectId: DemoProject.id)) == 1 else {
            throw ValidationError("the \(api.rawValue) bench request was not delivered")
        }
        let start = ContinuousClock.now
        var failures = 0
        for _ in 0..<requests where !send() { failures += 1 }
        let elapsed = ContinuousClock.now - start
        print(
            "send:    \(requests) \(api.rawValue) sends in process in \(elapsed.seconds.fixed(2)) s"
                + " = \((Double(requests) / elapsed.seconds).fixed(0)) requests/s on one core"
                + " (\((elapsed.seconds / Double(requests) * 1e6).fixed(1)) µs each, \(failures) failed)")
    }

    private static let data = #""data":{"score":"3-0","minute":"90"}"#

    private static func v1Request(token: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", target: "/v1/projects/\(DemoProject.id)/messages:send",
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer bench")],
            body: #"{"message":{"token":"\#(token)",\#(data),"android":{"priority":"high","ttl":"3600s"}}}"#)
    }

    /// The v1 request as a client's bytes, keep-alive.
    private static func v1Wire(token: String) -> [UInt8] {
        let request = v1Request(token: token)
        var text = "POST \(request.path) HTTP/1.1\r\nHost: 127.0.0.1:9092\r\nUser-Agent: bench\r\n"
        for (name, value) in request.headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(request.body.count)\r\n\r\n"
        return Array(text.utf8) + request.body
    }

    /// One keep-alive connection of the plain port's pipeline: each call writes the request's
    /// bytes in and reads the answer's bytes out.
    private static func wire(_ responder: HTTPResponder, request: [UInt8]) throws -> () -> Bool {
        let channel = EmbeddedChannel()
        let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        try HTTPServer.configurePlainHTTP(channel.pipeline.syncOperations, responder: responder, idleTimeout: .seconds(120), logger: quiet)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let status = Array("HTTP/1.1 200 ".utf8)
        return {
            guard (try? channel.writeInbound(channel.allocator.buffer(bytes: request))) != nil else { return false }
            var ok = false
            while let answer = try? channel.readOutbound(as: ByteBuffer.self) {
                ok = ok || answer.readableBytesView.starts(with: status)
            }
            return ok
        }
    }

    private static func legacyRequest(token: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", target: "/fcm/send",
            headers: [("Content-Type", "application/json"), ("Authorization", "key=\(DemoProject.serverKey)")],
            body: #"{"to":"\#(token)",\#(data),"priority":"high","time_to_live":3600}"#)
    }

    private static func ccsStanza(token: String) -> String {
        let json = #"{"to":"\#(token)","message_id":"m",\#(data),"priority":"high","time_to_live":3600}"#
        return "<message id=''><gcm xmlns='google:mobile:data'>\(json)</gcm></message>"
    }

    /// The stream header, SASL PLAIN and the bind, as a client sends them (RFC 6120 §4, §6, §7).
    private static func logIn(_ connection: inout CCSConnection) -> Bool {
        let header =
            "<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"
        let credentials = Data("\0\(DemoProject.number)@gcm.googleapis.com\0\(DemoProject.serverKey)".utf8).base64EncodedString()
        let auth = "<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>\(credentials)</auth>"
        let bind = "<iq type='set' id='b1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>"
        for text in [header, auth, header, bind] { _ = connection.receive(Array(text.utf8)) }
        return connection.connection != nil
    }
}
