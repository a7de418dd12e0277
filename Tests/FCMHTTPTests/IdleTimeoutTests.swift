// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 23, item 9: the idle timeout counted only bytes read, so a client reading a big answer
/// slowly got a 200 cut short. Progress in either direction now keeps a connection.
@Suite("Idle timeout counts progress both ways")
struct IdleTimeoutTests {
    /// Bigger than the kernel's buffers on both sides together (tcp_wmem's ceiling is 4 MiB), so
    /// most of it waits in the server's own buffer while the client reads.
    static let bodyBytes = 16 << 20
    static let idle = TimeAmount.milliseconds(200)

    /// A listener whose one route answers `bodyBytes` of zeros; its log tells when it lets a connection go.
    private func withServer(_ body: (HTTPServer, IdleSignal) async throws -> Void) async throws {
        var router = Router { _, _ in HTTPResponse(status: 404) }
        router.add("GET", "/big") { _, _ in HTTPResponse(status: 200, headers: [], body: [UInt8](repeating: 0, count: Self.bodyBytes)) }
        let responder = HTTPResponder(router: router, maxBodyBytes: 1024) { _ in HTTPResponse(status: 413) }
        let signal = IdleSignal()
        let server = try await HTTPServer.start(
            host: "127.0.0.1", port: 0, responder: responder, group: MultiThreadedEventLoopGroup.singleton, idleTimeout: Self.idle,
            logger: signal.logger())
        do {
            try await body(server, signal)
        } catch {
            await server.close()
            throw error
        }
        await server.close()
    }

    @Test func aSlowReaderOfABigAnswerGetsAllOfIt() async throws {
        try await withServer { server, signal in
            let connection = try RawConnection(port: server.port, receiveBuffer: 64 * 1024)
            try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try connection.readHead()
            #expect(head.status == 200)
            // 64 KiB at most per read, 2 ms apart: each pause far under the timeout, the whole
            // transfer (at least 256 reads, over half a second) well over it; at the timeout the
            // server still holds megabytes, which the old timer threw away.
            var received = 0
            while received < Self.bodyBytes {
                let n = try connection.discard(upTo: min(64 * 1024, Self.bodyBytes - received))
                if n == 0 { break }
                received += n
                usleep(2000)
            }
            #expect(received == Self.bodyBytes)
            #expect(signal.idleClosures == 0)
        }
    }

    @Test func aPeerThatReadsNothingIsStillLetGo() async throws {
        try await withServer { server, signal in
            let connection = try RawConnection(port: server.port, receiveBuffer: 4096)
            try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            try await signal.firstIdleClosure(within: .seconds(10))
            // What the kernels held still arrives, then the end: the answer was cut short.
            _ = try connection.readHead()
            var received = 0
            while true {
                let n = try connection.discard(upTo: 1 << 16)
                if n == 0 { break }
                received += n
            }
            #expect(received < Self.bodyBytes)
        }
    }

    /// The bookkeeping alone, on a clock moved by hand.
    @Test func progressIsBytesReadOrBytesThatLeftTheBuffer() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let second = TimeAmount.seconds(1)
        var progress = IdleTimeoutHandler.Progress(timeout: second, now: start)
        progress.enqueued(1000)
        #expect(progress.look(at: start + .milliseconds(500), buffered: 0) == .lookAgain(start + .milliseconds(1500)))
        // Nothing read, nothing sent since: idle one timeout after the last movement.
        #expect(progress.look(at: start + .milliseconds(1500), buffered: 0) == .idle)
        progress.enqueued(5000)
        #expect(progress.look(at: start + .milliseconds(1600), buffered: 4000) == .lookAgain(start + .milliseconds(2600)))
        #expect(progress.look(at: start + .milliseconds(2600), buffered: 3000) == .lookAgain(start + .milliseconds(3600)))
        // Stuck with bytes waiting: idle.
        #expect(progress.look(at: start + .milliseconds(3600), buffered: 3000) == .idle)
        progress.read(at: start + .milliseconds(3700))
        #expect(progress.look(at: start + .milliseconds(3800), buffered: 3000) == .lookAgain(start + .milliseconds(4700)))
        // A channel that cannot say what it buffers counts reads only.
        #expect(progress.look(at: start + .milliseconds(4700), buffered: nil) == .idle)
    }
}

/// Counts the transport's "idle" log lines and lets a test await the first.
final class IdleSignal: Sendable {
    private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    var idleClosures: Int { state.withLock { $0.count } }

    func logger() -> Logger {
        LogCapture { line in self.noted(line.message) }.logger(level: .trace)
    }

    private func noted(_ message: String) {
        guard message.contains("idle past its timeout") else { return }
        let waiters = state.withLock { state in
            state.count += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at the first idle closure; fails the test after `limit`.
    func firstIdleClosure(within limit: Duration) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = self.state.withLock { state in
                        if state.count > 0 { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            #expect(first, "the server did not let an idle connection go within \(limit)")
            // The waiting child ends only when resumed.
            if !first { self.noted("idle past its timeout (the test gave up)") }
        }
    }
}
