// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOSSL

/// What every accepted connection has beneath its protocol, HTTP, HTTPS, the proxy and CCS alike
///, in this order from the socket:
/// 1. the idle timeout (`IdleTimeoutHandler`), first so it counts the bytes on the wire;
/// 2. with TLS, TLS from the first byte: a `slowHandshake` fault's hold on the ClientHello where
///    the port takes faults, and the log that names a client refusing the local CA (`TLSTrustLog`);
/// 3. back pressure: no connection reads faster than it can write (rows 5 and 7).
///
/// `Listener.bind` lays it under each connection's protocol; tests and the bench lay it on an
/// `EmbeddedChannel` with `add(to:)`.
package struct ConnectionFloor: Sendable {
    package enum Idle: Sendable {
        /// No progress either way (bytes read, or bytes the peer took of ours) for this long:
        /// HTTP, where a slow reader of a big answer is still making progress.
        case bothWays(TimeAmount)
        /// Nothing read for this long: CCS, where a client's whitespace keepalives are its sign of life.
        case readsOnly(TimeAmount)
        case never
    }

    /// The back-pressure handler's name: the proxy takes it out of a connection that becomes a tunnel.
    package static let backPressureName = "back-pressure"

    package var idle: Idle
    package var tls: NIOSSLContext?
    /// With TLS: where a `slowHandshake` fault is looked up (`SlowHandshakeHandler`); nil takes none.
    package var handshakeFaults: HTTPResponder?
    package var logger: Logger

    package init(idle: Idle, tls: NIOSSLContext? = nil, handshakeFaults: HTTPResponder? = nil, logger: Logger) {
        self.idle = idle
        self.tls = tls
        self.handshakeFaults = handshakeFaults
        self.logger = logger
    }

    package func add(to sync: ChannelPipeline.SynchronousOperations) throws {
        switch idle {
        case .bothWays(let timeout): try sync.addHandler(IdleTimeoutHandler(timeout: timeout))
        case .readsOnly(let timeout): try sync.addHandler(IdleTimeoutHandler(timeout: timeout, countsWrites: false))
        case .never: break
        }
        if let tls {
            if let handshakeFaults { try sync.addHandler(SlowHandshakeHandler(responder: handshakeFaults)) }
            let trust = TLSTrustLog.pair(logger: logger)
            try sync.addHandler(trust.sniffer)
            try sync.addHandler(NIOSSLServerHandler(context: tls))
            try sync.addHandler(trust.log)
        }
        try sync.addHandler(BackPressureHandler(), name: Self.backPressureName)
    }
}
