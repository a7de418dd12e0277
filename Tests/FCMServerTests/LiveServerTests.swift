// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMServer
import FCMTesting
import Foundation
import Logging
import NIOPosix
import Testing

@Suite("Live HTTP server on loopback")
struct LiveServerTests {
    private func withServer(maxBodyBytes: Int = 64 * 1024, tls: Bool = false, _ body: (EmulatorServer) async throws -> Void) async throws {
        try await withLiveServer(maxBodyBytes: maxBodyBytes, tls: tls, body)
    }

    private func stillServes(_ server: EmulatorServer) throws {
        let connection = try RawConnection(port: server.http.port)
        try connection.send("GET /emulator/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
    }

    /// With no state directory the CA and its key go to a fresh private directory, never to a
    /// name another local user could guess and fill first.
    @Test func withoutAStateDirectoryTheCAIsMadeInAFreshPrivateDirectory() async throws {
        let temporary = FileManager.default.temporaryDirectory.path
        var seen: [String] = []
        for _ in 0..<2 {
            try await withServer(tls: true) { server in
                let directory = server.tlsDirectory
                seen.append(directory)
                #expect(directory.hasPrefix(temporary + "/fcm-emu-tls-"))
                #expect(!directory.contains("-\(getpid())-"))
                let mode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
                #expect(mode == 0o700)
                #expect(FileManager.default.fileExists(atPath: directory + "/ca-key.pem"))
            }
        }
        #expect(seen.count == 2 && seen[0] != seen[1])
        for directory in seen { #expect(!FileManager.default.fileExists(atPath: directory), "removed at shutdown") }
    }

    /// The JDK's `HttpClient` asks every `http://` request to upgrade to h2c. The answer is
    /// HTTP/1.1 and closes the connection, so the client's next request goes on a new one instead
    /// of waiting forever on a connection whose decoder stopped (a Java app fetching a token twice).
    @Test func anUpgradeRequestIsAnsweredAndItsConnectionClosed() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.http.port)
            try connection.send(
                "GET /emulator/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n\r\n")
            let answer = try connection.readResponse()
            #expect(answer.status == 200)
            #expect(answer.header("Connection")?.lowercased() == "close")
            #expect(try connection.isClosedByPeer())
            try stillServes(server)
        }
    }

    @Test func servesKeepAliveRequestsAndReportsItsPort() async throws {
        try await withServer { server in
            #expect(server.http.port > 0)
            #expect(server.info["http"]?["port"]?.int64Value == Int64(server.http.port))
            let connection = try RawConnection(port: server.http.port)
            let body = #"{"platform":"android","name":"live"}"#
            try connection.send(
                "POST /emulator/v1/projects/demo-fcm-emu/devices HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let created = try connection.readResponse()
            #expect(created.status == 201)
            #expect(created.body.contains("\"name\": \"live\""))
            try connection.send("GET /emulator/v1/projects/demo-fcm-emu/devices/live HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
    }

    @Test func tlsListenerStartsWithALocalCA() async throws {
        try await withServer(tls: true) { server in
            let https = try #require(server.https)
            #expect(https.port > 0 && https.port != server.http.port)
            let ca = try #require(server.caCertificatePath)
            #expect(server.info["caCertificate"]?.stringValue == ca)
            #expect(server.info["https"]?["port"]?.int64Value == Int64(https.port))
            // Plain bytes at the TLS port are a failed handshake, not a crash; others are still served.
            let connection = try RawConnection(port: https.port)
            try connection.send("GET / HTTP/1.1\r\n\r\n")
            #expect(try connection.isClosedByPeer())
            try stillServes(server)
        }
    }

    @Test func injectedResetDropsTheConnectionAndLatencyDelays() async throws {
        try await withServer { server in
            try server.emulator.setFaultRules([FaultRule(id: "reset", match: .init(api: .v1, nth: 1), action: .reset)])
            let connection = try RawConnection(port: server.http.port)
            try connection.send(
                "POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer x\r\nContent-Length: 2\r\n\r\n{}"
            )
            #expect(try connection.isClosedByPeer())
            try stillServes(server)
        }
    }

    @Test func declaredOversizeBodyIs413AndTheConnectionCloses() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.http.port)
            try connection.send("POST /emulator/v1/projects HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\n\r\n{")
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.body.contains("larger than 65536 bytes"))
            #expect(try connection.isClosedByPeer())
            try stillServes(server)
            #expect(server.emulator.projects().count == 1)
        }
    }

    @Test func oversizeV1BodyIsRefusedInV1sDialect() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.http.port)
            try connection.send("POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: localhost\r\nContent-Length: 999999\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.body.contains("\"status\": \"INVALID_ARGUMENT\""))
            #expect(response.header("Content-Type") == "application/json; charset=UTF-8")
        }
    }

    @Test func chunkedOversizeBodyIs413() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.http.port)
            try connection.send("POST /emulator/v1/projects HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 40_000)
            try connection.send("9c40\r\n\(chunk)\r\n9c40\r\n\(chunk)\r\n")
            #expect(try connection.readResponse().status == 413)
            try stillServes(server)
        }
    }

    @Test func garbageGets400AndOthersAreStillServed() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.http.port)
            try connection.send([0x16, 0x03, 0x01, 0x00, 0xFF] + Array("\r\n\r\nnot http at all\r\n\r\n".utf8))
            #expect(try connection.readResponse().status == 400)
            #expect(try connection.isClosedByPeer())
            try stillServes(server)
        }
    }

    @Test func clientVanishingMidBodyChangesNothing() async throws {
        try await withServer { server in
            do {
                let connection = try RawConnection(port: server.http.port)
                try connection.send("POST /emulator/v1/projects HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50\r\n\r\n{\"id\":\"half")
            }  // closed here, mid-body
            try stillServes(server)
            #expect(server.emulator.projects().map(\.id) == [DemoProject.id])
        }
    }
}
