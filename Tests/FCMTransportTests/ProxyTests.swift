// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMTesting
@testable import FCMTransport
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// What the proxy makes of a request line; the relay itself is driven by real clients in the
/// interop suite (interop/test_proxy.py: firebase-admin unpatched, h2 inside the tunnel).
@Suite("HTTPS proxy")
struct ProxyTests {
    @Test func connectTargets() {
        #expect(ProxyRequestHandler.authority("fcm.googleapis.com:443").map { $0 == ("fcm.googleapis.com", 443) } == true)
        #expect(ProxyRequestHandler.authority("[::1]:5235").map { $0 == ("::1", 5235) } == true)
        #expect(ProxyRequestHandler.authority("fcm.googleapis.com") == nil)
        #expect(ProxyRequestHandler.authority("x:99999") == nil)
        #expect(ProxyRequestHandler.authority(":443") == nil)
    }

    @Test func absoluteFormBecomesOriginForm() {
        let metadata = ProxyRequestHandler.originForm("http://metadata.google.internal/computeMetadata/v1/project/project-id?alt=text")
        #expect(metadata?.host == "metadata.google.internal")
        #expect(metadata?.target == "/computeMetadata/v1/project/project-id?alt=text")
        #expect(ProxyRequestHandler.originForm("http://host:8080")?.target == "/")
        #expect(ProxyRequestHandler.originForm("/already/origin") == nil)
    }

    @Test func aStoodInHostGoesToTheLocalPortForItsPort() {
        var standIns = StandIns()
        standIns.serve(["a.example", "B.example"], port: 443, by: 9093)
        standIns.serve(["x.example"], port: 5236, by: 40002)
        standIns.serve(["off.example"], port: 443, by: nil)
        standIns.answerPlainHTTP(["Plain.example"])
        #expect(standIns.port(for: "A.example", 443) == 9093)
        #expect(standIns.port(for: "b.example", 443) == 9093)
        #expect(standIns.port(for: "a.example", 8443) == nil)
        #expect(standIns.port(for: "x.example", 5236) == 40002)
        #expect(standIns.port(for: "off.example", 443) == nil, "a listener that is off stands in for nothing")
        #expect(standIns.hosts(on: 443) == ["a.example", "b.example"])
        #expect(standIns.answersPlainHTTP("PLAIN.example"))
        #expect(!standIns.answersPlainHTTP("a.example"))
    }
}

/// Which tunnels `proxyTunnelHosts` and `proxyTunnel` allow.
@Suite("Proxy tunnel policy")
struct TunnelPolicyTests {
    @Test func entriesParseAndBadOnesAreRefused() throws {
        let entries = try TunnelPolicy.parseHosts(" API.example.com , 127.0.0.1:8080,*.corp.example:8443,[::1]:9000,::1")
        #expect(entries.map(\.host) == ["api.example.com", "127.0.0.1", "*.corp.example", "::1", "::1"])
        #expect(entries.map(\.port) == [nil, 8080, 8443, 9000, nil])
        for bad in ["*", "host:0", "host:70000", "host:x", "a b", "*.", "ex*ample.com", "é.example"] {
            #expect(throws: TunnelPolicy.ParseError.self, "\(bad)") { try TunnelPolicy.parseHosts(bad) }
        }
    }

    @Test func admissionNamesTheEntryThatAllowsTheHost() throws {
        let policy = TunnelPolicy(hosts: try TunnelPolicy.parseHosts("api.example.com,127.0.0.1:8080,*.corp.example:8443"))
        #expect(policy.admits(host: "API.example.com", port: 443) == .other)
        #expect(policy.admits(host: "127.0.0.1", port: 8080) == .exactWithPort)
        #expect(policy.admits(host: "127.0.0.1", port: 8081) == nil)
        #expect(policy.admits(host: "a.b.corp.example", port: 8443) == .other)
        #expect(policy.admits(host: "corp.example", port: 8443) == nil)
        #expect(policy.admits(host: "x.corp.example", port: 443) == nil)
        #expect(policy.admits(host: "example.com", port: 443) == nil)
        #expect(TunnelPolicy(anyHostOffThisMachine: true).admits(host: "example.com", port: 443) == .other)
        #expect(TunnelPolicy().admits(host: "example.com", port: 443) == nil)
    }

    /// Any text, a CONNECT target or a setting: parsed into something usable, or refused; never a
    /// trap, and no entry that admits every host (a property over 20,000 seeded strings).
    @Test func anyTextParsesOrIsRefusedAndNoEntryAdmitsEverything() {
        var random = SeededRandom(seed: 23)
        let alphabet = Array("ab09.-_*:[], \té")
        for _ in 0..<20_000 {
            let text = String((0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
            if let target = ProxyRequestHandler.authority(text) {
                #expect(!target.host.isEmpty && (1...65535).contains(target.port), "\(text)")
            }
            guard let entries = try? TunnelPolicy.parseHosts(text) else { continue }
            for entry in entries {
                #expect(!entry.host.dropFirst(entry.isPattern ? 2 : 0).contains("*") && entry.host != "*." && !entry.host.isEmpty, "\(text)")
            }
            let policy = TunnelPolicy(hosts: entries)
            #expect(policy.admits(host: "unlisted.invalid", port: 443) == nil || text.contains("unlisted"), "\(text)")
        }
    }

    @Test func thisMachineIsLoopbackUnspecifiedLinkLocalAndItsInterfaces() throws {
        let interface = try SocketAddress(ipAddress: "192.168.7.7", port: 0)
        let local = ["127.0.0.1", "127.9.9.9", "0.0.0.0", "169.254.169.254", "::1", "::", "fe80::1", "::ffff:127.0.0.1", "192.168.7.7"]
        for address in local {
            #expect(TunnelPolicy.isThisMachine(try SocketAddress(ipAddress: address, port: 443), interfaces: [interface]), "\(address)")
        }
        for address in ["8.8.8.8", "192.168.7.8", "2001:db8::1", "::ffff:8.8.8.8"] {
            #expect(!TunnelPolicy.isThisMachine(try SocketAddress(ipAddress: address, port: 443), interfaces: [interface]), "\(address)")
        }
    }
}

/// The proxy port's HTTP/1.1 pipeline on an `EmbeddedChannel`: the plain port's, CONNECT in front.
@Suite("Proxy port pipeline, without sockets")
struct ProxyPipelineTests {
    /// Counts the reads that reach the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// A request the proxy answers itself: the metadata server's, in absolute form.
    static let health =
        "GET http://metadata.google.internal/computeMetadata/v1/project/project-id HTTP/1.1\r\nHost: x\r\nMetadata-Flavor: Google\r\n\r\n"

    /// A client that pipelines and does not read: its requests wait, none is dropped, and
    /// nothing more is read from it meanwhile.
    @Test func pipelinedRequestsOfAClientThatDoesNotReadWaitAndNoneIsDropped() throws {
        let wire = try HTTPHandlerTests.Wire(proxyFor: Emulator())
        wire.channel.isWritable = false
        wire.channel.pipeline.fireChannelWritabilityChanged()
        try wire.send(Self.health + Self.health + Self.health)
        let counter = try wire.channel.pipeline.syncOperations.handler(type: ReadCounter.self)
        let reads = counter.reads
        wire.channel.read()
        #expect(counter.reads == reads, "read while the client reads nothing")
        #expect(try wire.received().isEmpty)
        wire.channel.isWritable = true
        wire.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try wire.received().components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 3)
    }

    @Test func malformedRequestIs400AndCloses() throws {
        let wire = try HTTPHandlerTests.Wire(proxyFor: Emulator())
        try? wire.send("GARBAGE\r\n\r\n")
        #expect(try wire.received().hasPrefix("HTTP/1.1 400 Bad Request"))
        #expect(!wire.channel.isActive)
    }

    /// The refusal of a CONNECT says why; NIO's pairing of encoder and decoder would drop that body.
    @Test func aRefusedConnectKeepsItsExplanation() throws {
        let wire = try HTTPHandlerTests.Wire(proxyFor: Emulator())
        try wire.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let answer = try wire.received()
        #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden"))
        #expect(answer.contains("does not stand in for example.com:443") && answer.contains("proxyTunnelHosts=example.com"))
        #expect(!wire.channel.isActive)
    }
}

extension HTTPHandlerTests.Wire {
    /// The proxy port's pipeline, with a count of the reads that reach the socket in front.
    init(proxyFor emulator: Emulator) throws {
        api = InProcess(emulator)
        let logger = Logger.quiet
        let front = ProxyRequestHandler(
            configuration: .init(standIns: ProxyTunnelTests.standIns(tls: nil)), record: { emulator.recordProxyConnect($0) }, logger: logger)
        try channel.pipeline.syncOperations.addHandler(ProxyPipelineTests.ReadCounter())
        try HTTPServer.configurePlainHTTP(
            channel.pipeline.syncOperations, responder: api.responder, idleTimeout: .seconds(120), logger: logger, proxy: front)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }
}
