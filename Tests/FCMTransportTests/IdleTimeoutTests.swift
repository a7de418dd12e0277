// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
import FCMTesting
@testable import FCMTransport
import Dispatch
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The idle timeout counted only bytes read, so a client reading a big answer
/// slowly got a 200 cut short. Progress in either direction now keeps a connection.
@Suite("Idle timeout counts progress both ways", .timeLimit(.minutes(1)))
struct IdleTimeoutTests {
    /// Bigger than the kernel's buffers on both sides together (tcp_wmem's ceiling is 4 MiB), so
    /// most of it waits in the server's own buffer while the client reads.
    static let bodyBytes = 16 << 20
    static let idle = TimeAmount.milliseconds(200)
    /// The slow reader's timeout: a reader starved of the CPU for a whole timeout has truly made
    /// no progress. Under CI's parallel tests on two cores 200 ms of starvation happened, and
    /// once a reader that waited its turn on the cooperative pool was resumed a second late; it
    /// now has a thread of its own (`onAThreadOfItsOwn`), and two seconds to spare.
    static let slowReaderIdle = TimeAmount.seconds(2)

    /// A plain HTTP/1.1 listener built as `HTTPServer.start` builds one (`configurePlainHTTP`, the
    /// unsent low-water mark), whose one route answers `bodyBytes` of zeros. `Looks` hears each
    /// look of a connection's idle handler; the log tells when the server lets a connection go.
    private func withServer(idle: TimeAmount = Self.idle, _ body: (_ port: Int, IdleSignal, Looks) async throws -> Void) async throws {
        var router = Router(
            unmounted: Dialect(
                notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
                refused: { HTTPResponse(status: $0.status) }))
        router.add("GET", "/big") { _, _ in HTTPResponse(status: 200, headers: [], body: [UInt8](repeating: 0, count: Self.bodyBytes)) }
        let responder = HTTPResponder(router: router, maxBodyBytes: 1024) { _ in HTTPResponse(status: 413) }
        let signal = IdleSignal()
        let logger = signal.logger()
        let looks = Looks()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(IdleTimeoutHandler.unsentLowWater.option, value: IdleTimeoutHandler.unsentLowWater.bytes)
            .childChannelInitializer { channel in
                channel.closeFuture.whenComplete { _ in looks.closed() }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try HTTPServer.configurePlainHTTP(sync, responder: responder, idleTimeout: idle, logger: logger)
                    try sync.handler(type: IdleTimeoutHandler.self).onLook = { looks.noted($0) }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        do {
            try await body(listener.localAddress?.port ?? 0, signal, looks)
        } catch {
            try? await listener.close()
            throw error
        }
        try? await listener.close()
    }

    @Test func aSlowReaderOfABigAnswerGetsAllOfIt() async throws {
        try await withServer(idle: Self.slowReaderIdle) { port, signal, looks in
            let (status, received, pauses) = try await Self.onAThreadOfItsOwn { try Self.readSlowly(port: port, looks: looks) }
            #expect(status == 200)
            #expect(received == Self.bodyBytes)
            #expect(pauses == 3)
            #expect(!looks.seen.contains(.idle))
            #expect(signal.idleClosures == 0)
        }
    }

    /// A quarter of the answer, then a pause until the idle handler has looked again: the
    /// transfer spans three looks (more than two timeouts), and at each the server still holds
    /// megabytes, of which only what the reader took has moved since the look before. The old
    /// timer, which counted bytes read only, threw them away at the first look.
    private static func readSlowly(port: Int, looks: Looks) throws -> (status: Int, received: Int, pauses: Int) {
        let connection = try RawConnection(port: port, receiveBuffer: 64 * 1024)
        try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readHead()
        var received = 0
        var pauses = 0
        while received < Self.bodyBytes {
            let before = looks.count
            let quarter = min(received + Self.bodyBytes / 4, Self.bodyBytes)
            while received < quarter {
                let n = try connection.discard(upTo: min(64 * 1024, quarter - received))
                if n == 0 { break }
                received += n
            }
            guard received == quarter, received < Self.bodyBytes else { break }
            looks.wait(after: before)
            pauses += 1
        }
        return (head.status, received, pauses)
    }

    /// The reader blocks in `read` and must go on within a timeout of each look. Tests run as
    /// tasks on the cooperative pool, as wide as the machine's cores, where other tests' blocking
    /// reads can hold every thread for longer than that (a CI run on two cores saw the reader
    /// resumed a second late and rightly let go); a queue of its own gets a thread of its own.
    private static func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "slow reader").async { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test func aPeerThatReadsNothingIsStillLetGo() async throws {
        try await withServer { port, signal, looks in
            let connection = try RawConnection(port: port, receiveBuffer: 4096)
            try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            // Nothing read: the first look may still see the kernels filling, the second sees no
            // byte moved since and lets the connection go. A third look would be one too many.
            let seen = await looks.after(2)
            #expect(seen.prefix(2).contains(.idle), "the handler's looks: \(seen)")
            // What the kernels held still arrives, then the end: the answer was cut short (a read
            // fails after RawConnection's few seconds if the server never closes).
            _ = try connection.readHead()
            var received = 0
            while true {
                let n = try connection.discard(upTo: 1 << 16)
                if n == 0 { break }
                received += n
            }
            #expect(received < Self.bodyBytes)
            #expect(signal.idleClosures == 1)
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

/// Counts the transport's "idle" log lines: the connections the server let go.
final class IdleSignal: Sendable {
    private let count = Mutex(0)

    var idleClosures: Int { count.withLock { $0 } }

    func logger() -> Logger {
        LogCapture { line in self.noted(line.message) }.logger(level: .trace)
    }

    private func noted(_ message: String) {
        guard message.contains("idle past its timeout") else { return }
        count.withLock { $0 += 1 }
    }
}

/// The looks of the idle handlers of a test's connections, in order: a test awaits the handler's
/// next look instead of sleeping. A connection that closes wakes every waiter (no look follows).
final class Looks: Sendable {
    typealias Action = IdleTimeoutHandler.Progress.Action

    private struct State {
        var seen: [Action] = []
        var closed = false
        var waiters: [(count: Int, wake: @Sendable () -> Void)] = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.seen.count } }
    var seen: [Action] { state.withLock { $0.seen } }

    func noted(_ action: Action) { change { $0.seen.append(action) } }

    func closed() { change { $0.closed = true } }

    /// The looks so far, once there are more than `count` of them or the connection closed.
    func after(_ count: Int) async -> [Action] {
        await withCheckedContinuation { continuation in waiting(after: count) { continuation.resume() } }
        return seen
    }

    /// The same, blocking the calling thread: for a reader on a thread of its own.
    func wait(after count: Int) {
        let semaphore = DispatchSemaphore(value: 0)
        waiting(after: count) { semaphore.signal() }
        semaphore.wait()
    }

    private func waiting(after count: Int, then wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.closed || state.seen.count > count { return true }
            state.waiters.append((count, wake))
            return false
        }
        if now { wake() }
    }

    private func change(_ body: (inout State) -> Void) {
        let ready = state.withLock { state in
            body(&state)
            let (seen, closed) = (state.seen.count, state.closed)
            let ready = state.waiters.filter { closed || seen > $0.count }
            state.waiters.removeAll { closed || seen > $0.count }
            return ready.map(\.wake)
        }
        for wake in ready { wake() }
    }
}
