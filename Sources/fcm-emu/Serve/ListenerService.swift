// SPDX-License-Identifier: Apache-2.0

import Logging
import ServiceLifecycle
import Synchronization

/// One of serve's listeners as a service of the group (EmulatorServices.swift): it binds when the
/// group runs it and tells `startup` what it bound, then serves until the group shuts down. Then
/// it stops accepting and leaves its connections to finish in `drains`, which the emulator's
/// service awaits before the export: the group stops services one after another, and the
/// listeners' grace periods must run at once (docs/configuration.md, "Stopping").
///
/// A listener that cannot bind fails `startup` and throws: the group stops what did start, the
/// last first, and ends with that error (a listener that waited for it ends quietly). No
/// start-up rollback is written by hand.
struct ListenerService: Service {
    /// The listener as errors name it: "the XMPP server".
    let what: String
    let startup: Startup
    let drains: Drains
    /// Binds, records what it bound in `startup`, and returns how to begin closing it.
    let bind: @Sendable () async throws -> @Sendable () async -> [Task<Void, Never>]

    /// Counted in `drains` from when it is made, so the event loops outlive it, started or not.
    init(what: String, startup: Startup, drains: Drains, bind: @escaping @Sendable () async throws -> @Sendable () async -> [Task<Void, Never>]) {
        self.what = what
        self.startup = startup
        self.drains = drains
        self.bind = bind
        drains.enter()
    }

    func run() async throws {
        defer { drains.leave() }
        let beginClose: @Sendable () async -> [Task<Void, Never>]
        do {
            // A shutdown during a wait for other listeners (the proxy's) ends the wait.
            beginClose = try await cancelWhenGracefulShutdown { try await bind() }
        } catch is CancellationError {
            return
        } catch is RuntimeFailure {
            // Another listener's failure, which a wait for it ended with: the group ends with
            // that one; this service ends at its turn to stop.
            try? await gracefulShutdown()
            return
        } catch {
            let failure = RuntimeFailure(listening: error, what: what)
            startup.failed(failure)
            throw failure
        }
        try? await gracefulShutdown()
        drains.add(await beginClose())
    }
}

/// The closing listeners' connections, awaited together, and the listener services still
/// running: the event loops may end only once no listener is binding on them or serving.
final class Drains: Sendable {
    private struct State {
        var closing: [Task<Void, Never>] = []
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func enter() {
        state.withLock { $0.running += 1 }
    }

    func leave() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.running -= 1
            guard s.running == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func add(_ closing: [Task<Void, Never>]) {
        state.withLock { $0.closing += closing }
    }

    /// Once every listener service has ended and every connection of every closed listener has
    /// finished or been closed.
    func finished() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s in
                guard s.running > 0 else { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        for task in state.withLock({ $0.closing }) { await task.value }
    }
}
