// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Synchronization

/// A listener's open connections, so that a shutdown lets them finish rather than cutting them
///: each is asked to quiesce (`ChannelShouldQuiesceEvent`), which
/// `HTTP1Connection` answers by closing an idle connection at once and a busy one after its answer,
/// `HTTP2Connection` by a graceful GOAWAY and a close when its streams have ended, and a CCS
/// connection (FCMXMPP) by `<stream:error><system-shutdown/>` and the stream's end. What is
/// still open after the grace period (a tunnel, an answer held by injected latency) is closed.
package final class OpenConnections: Sendable {
    /// How long a shutdown waits for connections to finish before closing them.
    package static let gracePeriod = TimeAmount.seconds(5)

    /// At most one entry per open socket: the descriptor limit bounds it.
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    package init() {}

    /// Keeps `channel` until it closes.
    package func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = channels.withLock { $0.removeValue(forKey: id) } }
    }

    var count: Int { channels.withLock { $0.count } }

    /// Asks every connection to finish and close; once all have, or `gracePeriod` has passed on
    /// `eventLoop`, closes those that are left.
    package func quiesce(on eventLoop: any EventLoop, within gracePeriod: TimeAmount = OpenConnections.gracePeriod) async {
        let open = channels.withLock { Array($0.values) }
        guard !open.isEmpty else { return }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        let finished = eventLoop.makePromise(of: Void.self)
        let settled = Settled()
        let settle: @Sendable () -> Void = { if settled.first() { finished.succeed() } }
        let timer = eventLoop.scheduleTask(in: gracePeriod) { settle() }
        EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: eventLoop).whenComplete { _ in
            timer.cancel()
            settle()
        }
        try? await finished.futureResult.get()
        for channel in channels.withLock({ Array($0.values) }) { try? await channel.close() }
    }

    /// True the first time only: the grace period and the last close race to end the wait.
    private final class Settled: Sendable {
        private let done = Mutex(false)
        func first() -> Bool { done.withLock { done in defer { done = true }; return !done } }
    }
}
