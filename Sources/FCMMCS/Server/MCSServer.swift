// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport
import Logging
import NIOCore

/// The MCS listener real receivers hold their connection to: TLS from the first byte, as
/// `mtalk.google.com:5228` (docs/receivers.md, "MCS"; Chromium google_apis/gcm/engine/
/// connection_factory_impl.cc).
public final class MCSServer: Sendable {
    private let listener: Listener
    public var port: Int { listener.port }

    private init(listener: Listener) { self.listener = listener }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 5228
        /// The largest message a client may send, in bytes (a login with its received ids is
        /// the largest a receiver sends; docs/receivers.md, "Limits").
        public var maxFrameBytes = MCSServer.defaultMaxFrameBytes
        /// A connection must have logged in within this long, or it is closed.
        public var loginTimeoutSeconds: Int64 = 30
        /// A connection the client has sent nothing on for this long is closed. firebase-messaging
        /// pings after 20 s of silence and Chrome every few minutes, so 10 minutes lets both live.
        public var idleTimeoutSeconds: Int64 = 600

        public init() {}
    }

    public static let defaultMaxFrameBytes = 64 << 10

    /// MCS, the connection receivers hold open (docs/receivers.md), on FCM's port: what this
    /// listener stands in for, and what its certificate covers.
    public static let host = "mtalk.google.com"
    public static let fcmPort = 5228

    /// - Parameter tlsDirectory: where the local CA lives; the certificate covers `host`.
    public static func start(
        configuration: Configuration, tlsDirectory: String, emulator: Emulator, group: any EventLoopGroup, logger: Logger
    ) async throws -> MCSServer {
        // Chromium's client negotiates no application protocol (socket TLS, no ALPN).
        let (tls, _) = try TLSFiles.serverContext(directory: tlsDirectory, hosts: [host], alpn: [])
        let floor = ConnectionFloor(idle: idle(configuration), tls: tls, logger: logger)
        let router = MCSRouter(emulator: emulator)
        let listener = try await Listener.bind(host: configuration.host, port: configuration.port, group: group, floor: floor) { channel in
            channel.eventLoop.makeCompletedFuture {
                try addMCS(channel.pipeline.syncOperations, emulator: emulator, router: router, configuration: configuration, logger: logger)
            }
        }
        logger.info("MCS (receivers, TLS) listening", metadata: ["address": "\(configuration.host):\(listener.port)"])
        return MCSServer(listener: listener)
    }

    private static func idle(_ configuration: Configuration) -> ConnectionFloor.Idle {
        configuration.idleTimeoutSeconds > 0 ? .readsOnly(.seconds(configuration.idleTimeoutSeconds)) : .never
    }

    /// An MCS connection less TLS, on a test's `EmbeddedChannel`: the floor, then MCS.
    static func configureConnection(
        _ sync: ChannelPipeline.SynchronousOperations, emulator: Emulator, router: MCSRouter, configuration: Configuration, logger: Logger
    ) throws {
        try ConnectionFloor(idle: idle(configuration), logger: logger).add(to: sync)
        try addMCS(sync, emulator: emulator, router: router, configuration: configuration, logger: logger)
    }

    private static func addMCS(
        _ sync: ChannelPipeline.SynchronousOperations, emulator: Emulator, router: MCSRouter, configuration: Configuration, logger: Logger
    ) throws {
        try sync.addHandler(ByteToMessageHandler(MCSFrameDecoder(maxFrameBytes: configuration.maxFrameBytes)))
        let connection = MCSConnection(emulator: emulator) { plaintext, p256dh, auth in
            try? AESGCMEncryption.encrypt(plaintext, p256dh: p256dh, auth: auth)
        }
        try sync.addHandler(
            MCSConnectionHandler(connection: connection, router: router, loginTimeout: .seconds(configuration.loginTimeoutSeconds), logger: logger))
    }

    /// Stops accepting; open connections are sent `Close` (the client reconnects later) and closed.
    public func close() async { await listener.close() }

    /// `close` begun: the task ends when the connections have (`Listener.beginClose`).
    public func beginClose() async -> Task<Void, Never> { await listener.beginClose() }
}
