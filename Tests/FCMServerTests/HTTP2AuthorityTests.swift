// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMServer
import FCMTesting
import Testing

/// Over HTTP/2 the Host rule (docs/security.md, "Host") reads `:authority`, and a `host` header
/// beside it that names another target makes the request malformed (RFC 9113 §8.3.1): NIO's
/// HTTP/1 codec drops `:authority` when a `host` is present, so the rule once saw `host` alone.
@Suite("HTTP/2 :authority and Host", .timeLimit(.minutes(1)))
struct HTTP2AuthorityTests {
    static let info = "/emulator/v1/info"

    /// What the server answered on one stream: the first byte of its HEADERS block (HPACK's static
    /// table: 0x88 is `:status 200`, 0x8c `:status 400`) and the body.
    struct Answer {
        var status: UInt8?
        var body = ""
    }

    static func ask(_ client: RawHTTP2Client, stream: UInt32, authority: String, host: String?) async throws -> Answer {
        var fields = [(":method", "GET"), (":scheme", "https"), (":path", info), (":authority", authority)]
        if let host { fields.append(("host", host)) }
        try await client.send(RawHTTP2Client.headers(stream: stream, fields, endStream: true))
        var answer = Answer()
        var events = client.events.makeAsyncIterator()
        while case .frame(let type, let flags, let on, let payload)? = await events.next() {
            guard on == stream else { continue }
            if type == 0x1, answer.status == nil { answer.status = payload.first }
            if type == 0x0 { answer.body += String(decoding: payload, as: UTF8.self) }
            if type == 0x0 || type == 0x1, flags & 0x1 == 1 { break }
        }
        return answer
    }

    /// A page that has its own name rebound to 127.0.0.1 cannot choose its Host, but a client
    /// that sends `:authority` of another site with a loopback `host` (or the reverse) is refused,
    /// and the server key is not in the answer.
    @Test func anAuthorityAndAHostThatDisagreeAreRefused() async throws {
        try await withLiveServer(tls: true) { server in
            let port = try #require(server.https).port
            let serverKey = try #require(server.emulator.project(DemoProject.id).serverKeys.first)
            let client = try await RawHTTP2Client.connect(port: port)
            let pairs = [("evil.example", "127.0.0.1:\(port)"), ("127.0.0.1:\(port)", "evil.example"), ("localhost:\(port)", "localhost:1")]
            for (n, (authority, host)) in pairs.enumerated() {
                let answer = try await Self.ask(client, stream: UInt32(2 * n + 1), authority: authority, host: host)
                #expect(answer.status == 0x8c, "\(authority) / \(host): \(answer.body)")
                #expect(answer.body.contains("INVALID_ARGUMENT") && answer.body.contains("RFC 9113"), "\(answer.body)")
                #expect(!answer.body.contains(serverKey))
            }
            try? await client.channel.close()
        }
    }

    /// `:authority` alone is the Host rule's name; with a `host` that names the same target
    /// (case, a trailing dot and https's default port aside) the request is served.
    @Test func theAuthorityIsWhatTheHostRuleReads() async throws {
        try await withLiveServer(tls: true) { server in
            let port = try #require(server.https).port
            let client = try await RawHTTP2Client.connect(port: port)
            let refused = try await Self.ask(client, stream: 1, authority: "evil.example:\(port)", host: nil)
            #expect(refused.body.contains("PERMISSION_DENIED") && refused.body.contains("evil.example"), "\(refused.body)")
            let served: [(String, String?)] = [
                ("127.0.0.1:\(port)", nil), ("localhost", "LOCALHOST:443"), ("localhost.:\(port)", "localhost:\(port)"),
            ]
            for (n, (authority, host)) in served.enumerated() {
                let answer = try await Self.ask(client, stream: UInt32(2 * n + 3), authority: authority, host: host)
                #expect(answer.status == 0x88, "\(authority) / \(host ?? "-"): \(answer.body)")
            }
            try? await client.channel.close()
        }
    }
}
