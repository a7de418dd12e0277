// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Synchronization

/// The CCS connections a listener has open, so that stopping the server can end each one as CCS
/// would: `<stream:error><system-shutdown/>` and the stream close (RFC 6120 §4.9.3.17), rather
/// than a bare TCP close after the event loops' grace period.
final class OpenConnections: Sendable {
    /// What a connection handler receives when the server stops.
    struct Shutdown: Sendable {}

    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in self?.channels.withLock { _ = $0.removeValue(forKey: key) } }
    }

    /// Tells every open connection to end its stream, and waits until they have closed.
    func shutDown() async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(Shutdown()) }
        for channel in open { try? await channel.closeFuture.get() }
    }
}
