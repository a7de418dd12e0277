// SPDX-License-Identifier: Apache-2.0

import FCMMCS
import FCMServer
import FCMTransport
import FCMXMPP
import Synchronization

/// What the listener services have bound, for those that wait on it: the proxy needs the other
/// listeners' ports, and the ready file, the banner and `exec`'s command need them all. A
/// listener that cannot bind fails every wait, and the group shuts down with its error.
final class Startup: Sendable {
    /// The listeners bound so far.
    struct Bound: Sendable {
        var server: EmulatorServer?
        /// By the order of the `xmppPort` and `xmppTestPort` settings, those turned on.
        var xmpp: [Int: XMPPServer] = [:]
        var mcs: MCSServer?
        var proxy: ProxyServer?
    }

    /// Which listeners serve starts.
    struct Expected: Sendable {
        var xmpp = 0
        var mcs = false
        var proxy = false

        /// Everything but the proxy, which waits for the others' ports.
        func othersThanProxy(_ bound: Bound) -> Bool {
            bound.server != nil && bound.xmpp.count == xmpp && (bound.mcs != nil) == mcs
        }

        func all(_ bound: Bound) -> Bool { othersThanProxy(bound) && (bound.proxy != nil) == proxy }
    }

    private struct Waiter {
        let ready: @Sendable (Bound) -> Bool
        let continuation: CheckedContinuation<Bound, any Error>
    }

    private struct State {
        var bound = Bound()
        var failure: (any Error)?
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    let expected: Expected
    private let state = Mutex(State())

    init(expected: Expected) {
        self.expected = expected
    }

    /// What has bound so far.
    var current: Bound { state.withLock { $0.bound } }

    /// Whether every listener has bound: the emulator served, so there is a world to export.
    var isComplete: Bool { state.withLock { expected.all($0.bound) } }

    /// Records what a listener bound and wakes the waits it completes.
    func bound(_ change: (inout Bound) -> Void) {
        let woken: [(CheckedContinuation<Bound, any Error>, Bound)] = state.withLock { s in
            change(&s.bound)
            let bound = s.bound
            let ready = s.waiters.filter { $0.value.ready(bound) }
            for id in ready.keys { s.waiters[id] = nil }
            return ready.values.map { ($0.continuation, bound) }
        }
        for (continuation, bound) in woken { continuation.resume(returning: bound) }
    }

    /// A listener could not bind: every wait, now and later, ends with `error`.
    func failed(_ error: any Error) {
        let waiters: [Waiter] = state.withLock { s in
            if s.failure == nil { s.failure = error }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }

    /// What is bound once `ready` holds; throws a listener's failure, or on cancellation.
    func wait(until ready: @escaping @Sendable (Bound) -> Bool) async throws -> Bound {
        let id = state.withLock { s in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer: Result<Bound, any Error>? = state.withLock { s in
                    if let failure = s.failure { return .failure(failure) }
                    if ready(s.bound) { return .success(s.bound) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.waiters[id] = Waiter(ready: ready, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Every listener, once all have bound.
    func all() async throws -> Bound {
        let expected = expected
        return try await wait { expected.all($0) }
    }
}
