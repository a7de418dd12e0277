// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore
import Synchronization

/// Turns the core's "project P has CCS work" signals into work on each of P's connections, on
/// that connection's own event loop (the core never touches a channel: Sources/README.md).
public final class CCSRouter: Sendable {
    private struct Waker: Sendable {
        let eventLoop: any EventLoop
        let pump: @Sendable () -> Void
    }

    private let connections = Mutex<[String: [Int: Waker]]>([:])

    /// Listens to the emulator; one router serves every XMPP listener of a process.
    public init(emulator: Emulator) {
        emulator.setCCSListener { [weak self] project in self?.wake(project) }
    }

    func register(project: String, connection: Int, eventLoop: any EventLoop, pump: @escaping @Sendable () -> Void) {
        connections.withLock { $0[project, default: [:]][connection] = Waker(eventLoop: eventLoop, pump: pump) }
    }

    func unregister(project: String, connection: Int) {
        connections.withLock { _ = $0[project]?.removeValue(forKey: connection) }
    }

    private func wake(_ project: String) {
        let wakers = connections.withLock { Array(($0[project] ?? [:]).values) }
        for waker in wakers { waker.eventLoop.execute(waker.pump) }
    }
}
