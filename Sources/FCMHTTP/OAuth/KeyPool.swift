// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization
import _CryptoExtras

/// Where service-account keys are made: a 2048-bit RSA key takes tens to
/// hundreds of milliseconds of CPU, so it is made on a worker thread, never on an event loop (which
/// would stall every connection of that loop) nor under a lock. At most `maxRunning` keys are made
/// at once and `maxQueued` projects wait for a worker; past that a request is refused (503 with
/// `Retry-After`, `ControlAPI+ServiceAccount`). Requests for a project whose key is on its way
/// share its ticket, so a client that asks many times for one project makes one key.
package final class KeyPool: Sendable {
    /// Two workers leave a core for the loops on a small machine; 64 waiting is about 3 s of
    /// keys in a release build (about 100 ms each), so a parallel test run that makes a project
    /// per worker is served, and a flood of new projects is told to come back.
    static let defaultMaxRunning = 2
    static let defaultMaxQueued = 64

    package let maxRunning: Int
    package let maxQueued: Int
    /// Makes one key; tests replace it to hold a generation or to see which thread runs it.
    let makeKey: @Sendable () throws -> _RSA.Signing.PrivateKey

    private struct Job: Sendable {
        let name: String
        let ticket: KeyTicket
        let work: @Sendable () -> Result<ServiceAccount, FCMError>
    }

    private struct State: Sendable {
        var running = 0
        var queue: [Job] = []
        var tickets: [String: KeyTicket] = [:]
    }

    private let state = Mutex(State())

    init(
        maxRunning: Int = defaultMaxRunning, maxQueued: Int = defaultMaxQueued,
        makeKey: @escaping @Sendable () throws -> _RSA.Signing.PrivateKey = { try _RSA.Signing.PrivateKey(keySize: .bits2048) }
    ) {
        self.maxRunning = max(1, maxRunning)
        self.maxQueued = max(0, maxQueued)
        self.makeKey = makeKey
    }

    /// The ticket of `name`'s job: the one already under way, or a new one running `work` on a
    /// worker; nil when `maxRunning` jobs run and `maxQueued` wait already.
    func submit(_ name: String, _ work: @escaping @Sendable () -> Result<ServiceAccount, FCMError>) -> KeyTicket? {
        let (ticket, start): (KeyTicket?, Job?) = state.withLock { s in
            if let joined = s.tickets[name] { return (joined, nil) }
            let job = Job(name: name, ticket: KeyTicket(), work: work)
            if s.running < maxRunning {
                s.running += 1
                s.tickets[name] = job.ticket
                return (job.ticket, job)
            }
            guard s.queue.count < maxQueued else { return (nil, nil) }
            s.tickets[name] = job.ticket
            s.queue.append(job)
            return (job.ticket, nil)
        }
        if let start { DispatchQueue.global(qos: .userInitiated).async { self.drain(start) } }
        return ticket
    }

    /// Jobs in flight (running or queued), for tests.
    var pending: Int { state.withLock { $0.tickets.count } }

    /// Runs queued jobs on this worker until none is left; the worker's slot goes back then.
    private func drain(_ first: Job) {
        var job = first
        while true {
            let result = job.work()
            state.withLock { $0.tickets[job.name] = nil }
            job.ticket.finish(result)
            guard let queued = next() else { return }
            job = queued
        }
    }

    private func next() -> Job? {
        state.withLock { s in
            guard !s.queue.isEmpty else {
                s.running -= 1
                return nil
            }
            return s.queue.removeFirst()
        }
    }
}

/// A key on its way: done once, with the account or the error; whoever waits is called then.
package final class KeyTicket: Sendable {
    private let state = Mutex<(result: Result<ServiceAccount, FCMError>?, waiters: [@Sendable () -> Void])>((nil, []))

    package var result: Result<ServiceAccount, FCMError>? { state.withLock { $0.result } }

    /// Calls `waiter` once the ticket is done (at once when it is).
    package func onDone(_ waiter: @escaping @Sendable () -> Void) {
        let done = state.withLock { s -> Bool in
            if s.result != nil { return true }
            s.waiters.append(waiter)
            return false
        }
        if done { waiter() }
    }

    fileprivate func finish(_ result: Result<ServiceAccount, FCMError>) {
        let waiters = state.withLock { s -> [@Sendable () -> Void] in
            s.result = result
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter() }
    }
}
