// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore
import Synchronization

/// Turns the core's "receiver R has work" signals into work on R's connection, on that
/// connection's own event loop (the core never touches a channel: Sources/README.md).
final class MCSRouter: Sendable {
    private struct Waker: Sendable {
        let eventLoop: any EventLoop
        let pump: @Sendable () -> Void
    }

    /// By Android id, then by connection number: a new login may overlap the old one's close.
    private let connections = Mutex<[UInt64: [UInt64: Waker]]>([:])

    init(emulator: Emulator) {
        emulator.setReceiverListener { [weak self] ids in self?.wake(ids) }
    }

    func register(androidId: UInt64, connection: UInt64, eventLoop: any EventLoop, pump: @escaping @Sendable () -> Void) {
        connections.withLock { $0[androidId, default: [:]][connection] = Waker(eventLoop: eventLoop, pump: pump) }
    }

    func unregister(androidId: UInt64, connection: UInt64) {
        connections.withLock {
            _ = $0[androidId]?.removeValue(forKey: connection)
            if $0[androidId]?.isEmpty == true { $0[androidId] = nil }
        }
    }

    private func wake(_ ids: Set<UInt64>) {
        let wakers = connections.withLock { table in ids.flatMap { Array((table[$0] ?? [:]).values) } }
        for waker in wakers { waker.eventLoop.execute(waker.pump) }
    }
}
