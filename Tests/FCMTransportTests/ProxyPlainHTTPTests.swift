// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
@testable import FCMTransport
import NIOCore
import NIOHTTP1
import Testing

/// Plain HTTP through the proxy (absolute form, RFC 9112 §3.2.2), which `exec`'s `http_proxy`
/// sends here: the metadata server's and Google's names are answered by the emulator, any other
/// host is forwarded where a CONNECT could go, or refused with the same 403.
@Suite("Proxy plain HTTP, live")
struct ProxyPlainHTTPTests {
    private static func get(_ url: String, _ headers: String = "") -> String {
        "GET \(url) HTTP/1.1\r\nHost: wrong.example\r\nProxy-Connection: keep-alive\r\n\(headers)\r\n"
    }

    /// googleauth (Ruby) asks the hard-coded 169.254.169.254 through `http_proxy`; a Google name on
    /// any port stays here even when the proxy may tunnel anywhere.
    @Test func theMetadataServerAndGooglesNamesAreAnsweredHere() async throws {
        try await ProxyTunnelTests.withProxy(tunnel: { _ in TunnelPolicy(anyHostOffThisMachine: true) }) { _, proxy in
            let connection = try RawConnection(port: proxy.port)
            for host in ["169.254.169.254", "metadata.google.internal", "METADATA", "169.254.169.254:80"] {
                try connection.send(Self.get("http://\(host)/computeMetadata/v1/project/project-id", "Metadata-Flavor: Google\r\n"))
                let answer = try connection.readResponse()
                #expect(answer.status == 200, "\(host): \(answer.body)")
                #expect(answer.body == DemoProject.id && answer.header("Metadata-Flavor") == "Google", "\(host)")
            }
            try connection.send(Self.get("http://fcm.googleapis.com:8080/v1/projects/x/messages:send"))
            let google = try connection.readResponse()
            #expect(google.status == 405 && google.body.contains("Method not allowed"), "the v1 front's own answer: \(google.status)")
        }
    }

    @Test func anotherHostIsForwardedWhereACONNECTCouldGo() async throws {
        let far = try await FarSide.start()
        let target = "127.0.0.1:\(far.port)"
        try await ProxyTunnelTests.withProxy(tunnel: { _ in TunnelPolicy(hosts: try TunnelPolicy.parseHosts(target)) }) { _, proxy in
            let connection = try RawConnection(port: proxy.port)
            try connection.send(
                "POST http://\(target)/hook?x=1 HTTP/1.1\r\nHost: \(target)\r\nProxy-Connection: keep-alive\r\nX-App: 7\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
            let echoed = try connection.readResponse()
            #expect(echoed.status == 200)
            #expect(echoed.body.hasPrefix("POST /hook?x=1 HTTP/1.1\r\nHost: \(target)\r\n"))
            #expect(echoed.body.contains("X-App: 7\r\n") && !echoed.body.contains("Proxy-Connection"))
            #expect(echoed.body.hasSuffix("Content-Length: 5\r\nConnection: close\r\n\r\nabcde"), "de-chunked, with its length")
        }
        try await far.close()
    }

    @Test func aHostThePolicyDoesNotAdmitIsRefusedWithTheFix() async throws {
        try await ProxyTunnelTests.withProxy { _, proxy in
            let connection = try RawConnection(port: proxy.port)
            try connection.send(Self.get("http://example.com/"))
            let answer = try connection.readResponse()
            #expect(answer.status == 403)
            #expect(answer.body.contains("does not stand in for example.com:80") && answer.body.contains("NO_PROXY"))
            #expect(try connection.isClosedByPeer())
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        try await ProxyTunnelTests.withProxy(tunnel: { _ in TunnelPolicy(anyHostOffThisMachine: true) }) { _, proxy in
            let connection = try RawConnection(port: proxy.port)
            let size = PlainForward.bodyLimit + 1
            try connection.send("PUT http://example.com/big HTTP/1.1\r\nHost: example.com\r\nContent-Length: \(size)\r\n\r\n")
            // The proxy answers and closes while the body is still going: the rest may not be taken.
            try? connection.send([UInt8](repeating: 0x61, count: size))
            let answer = try connection.readResponse()
            #expect(answer.status == 413)
            #expect(answer.body.contains("NO_PROXY"))
        }
    }

    @Test func theForwardedRequestIsInOriginFormWithItsOwnHost() {
        var head = HTTPRequestHead(version: .http1_0, method: .GET, uri: "http://user@example.com:8080/a?b")
        head.headers = ["Host": "other", "Connection": "X-Hop, keep-alive", "X-Hop": "1", "Accept": "*/*", "Expect": "100-continue"]
        let standIns = ProxyTunnelTests.standIns(tls: nil)
        let plain = PlainForward(head: head, standIns: standIns, allocator: ByteBufferAllocator())
        #expect(plain?.name == "example.com:8080")
        let text = plain.map { String(buffer: $0.request(allocator: ByteBufferAllocator())) }
        #expect(text == "GET /a?b HTTP/1.0\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n")
        for answered in ["http://169.254.169.254/", "http://Metadata.Google.Internal/x", "http://oauth2.googleapis.com/token", "/origin"] {
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: answered)
            #expect(PlainForward(head: head, standIns: standIns, allocator: ByteBufferAllocator()) == nil)
        }
    }
}
