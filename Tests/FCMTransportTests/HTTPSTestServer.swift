// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// An HTTPS listener as `HTTPServer.start` builds one (the floor, then `configureHTTPS`), in
/// front of `responder`, by default one route, `GET /big`, that answers
/// `HTTP2BackPressureTests.answerBytes` of zeros; each HTTP/2 connection tells `gauge` what it
/// holds.
func withHTTPSServer(
    idle: TimeAmount = .seconds(120), responder: HTTPResponder? = nil, _ body: (_ port: Int, HeldGauge) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-emu-h2-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (tls, _) = try TLSFiles.serverContext(directory: directory, hosts: [], alpn: ["h2", "http/1.1"])
    var router = Router(
        unmounted: Dialect(
            notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
            refused: { HTTPResponse(status: $0.status) }))
    let big = [UInt8](repeating: 0, count: HTTP2BackPressureTests.answerBytes)
    router.add("GET", "/big") { _, _ in HTTPResponse(status: 200, headers: [], body: big) }
    let responder = responder ?? HTTPResponder(router: router, maxBodyBytes: 1024) { _ in HTTPResponse(status: 413) }
    let gauge = HeldGauge()
    let floor = ConnectionFloor(idle: .bothWays(idle), tls: tls, handshakeFaults: responder, logger: .quiet)
    let listener = try await Listener.bind(host: "127.0.0.1", port: 0, group: MultiThreadedEventLoopGroup.singleton, floor: floor) {
        channel in
        let connection = HTTP2Connection(idleTimeout: idle, logger: .quiet)
        connection.onHeldBytes = { gauge.note($0) }
        return HTTPServer.configureHTTPS(channel, connection: connection, responder: responder, logger: .quiet)
    }
    do {
        try await body(listener.port, gauge)
    } catch {
        await listener.close()
        throw error
    }
    await listener.close()
}

/// What the server's HTTP/2 connections hold, as `HTTP2Connection.onHeldBytes` tells it.
final class HeldGauge: Sendable {
    private let state = Mutex<(now: Int, peak: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, 0, []))

    var peak: Int { state.withLock { $0.peak } }

    func note(_ bytes: Int) {
        let ready = state.withLock { state in
            state.now = bytes
            state.peak = max(state.peak, bytes)
            let ready = state.waiters.filter { bytes >= $0.0 }
            state.waiters.removeAll { bytes >= $0.0 }
            return ready
        }
        for (_, continuation) in ready { continuation.resume() }
    }

    /// Returns once the bytes held have reached `bytes`.
    func reaches(_ bytes: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.now < bytes { state.waiters.append((bytes, continuation)) }
                return state.now
            }
            if now >= bytes { continuation.resume() }
        }
    }
}
