// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
@testable import FCMTransport
import NIOCore
import NIOEmbedded
import Testing

/// Who holds connections (docs/control-api.md, "Connections"): by address, user agent and port.
@Suite("Connections per client")
struct ClientConnectionsTests {
    /// Three HTTP/1.1 connections a leaky pool keeps open are one client holding three.
    @Test func heldConnectionsShowByUserAgent() async throws {
        try await withLiveServer { server in
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: server.http.port)
                try connection.send("GET /emulator/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: leaky/1.0\r\n\r\n")
                #expect(try connection.readResponse().status == 200)
                held.append(connection)
            }
            let reader = try RawConnection(port: server.http.port)
            try reader.send("GET /emulator/v1/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: checker\r\n\r\n")
            let answer = try reader.readResponse()
            #expect(answer.status == 200)
            let clients = try JSONParser.parse(Array(answer.body.utf8))["clients"]?.arrayValue ?? []
            let leaky = try #require(clients.first { $0["userAgent"] == .string("leaky/1.0") }, "\(answer.body)")
            #expect(leaky["address"] == .string("127.0.0.1"))
            #expect(leaky["listener"] == .string("http"))
            #expect(leaky["open"] == .int(3) && leaky["opened"] == .int(3) && leaky["requests"] == .int(3))
            #expect(clients.first?["userAgent"] == .string("leaky/1.0"))  // the most open first
            _ = held
        }
    }

    /// A closed connection folds into its client's totals; HTTP/2 streams count open and opened.
    @Test func closedConnectionsAndStreamsFoldIntoTotals() throws {
        let clients = ClientConnections()
        let connection = EmbeddedChannel()
        try connection.connect(to: SocketAddress(ipAddress: "10.0.0.7", port: 5555)).wait()
        clients.opened(connection, listener: "https")
        clients.request(on: connection, userAgent: "Go-http-client/2.0", stream: true)
        clients.request(on: connection, userAgent: "ignored: the first names the client", stream: true)
        clients.streamClosed(on: connection)
        var client = try #require(clients.clients().first)
        #expect(client.address == "10.0.0.7" && client.userAgent == "Go-http-client/2.0" && client.listener == "https")
        #expect((client.open, client.opened, client.requests, client.streamsOpened, client.streamsOpen) == (1, 1, 2, 2, 1))
        _ = try connection.finish(acceptAlreadyClosed: true)
        client = try #require(clients.clients().first)
        #expect((client.open, client.opened, client.requests, client.streamsOpened, client.streamsOpen) == (0, 1, 2, 2, 0))
    }

    /// Past `maxClients` distinct clients, the rest are counted as one named `other`.
    @Test func clientsAreBounded() throws {
        let clients = ClientConnections()
        for i in 0..<(ClientConnections.maxClients + 5) {
            let channel = EmbeddedChannel()
            try channel.connect(to: SocketAddress(ipAddress: "10.0.0.1", port: 1)).wait()
            clients.opened(channel, listener: "http")
            clients.request(on: channel, userAgent: "agent-\(i)", stream: false)
            _ = try channel.finish(acceptAlreadyClosed: true)
        }
        let all = clients.clients()
        #expect(all.count == ClientConnections.maxClients + 1)
        #expect(all.first { $0.address == "other" }?.opened == 5)
    }
}
