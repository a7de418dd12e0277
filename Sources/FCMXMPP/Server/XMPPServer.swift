// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport
import Logging
import NIOCore
import NIOSSL

/// The XMPP connection server: TLS from the first byte, no STARTTLS, as CCS
/// (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref; docs/xmpp.md).
public final class XMPPServer: Sendable {
    private let listener: Listener
    public var port: Int { listener.port }
    /// The local CA's certificate, which clients must trust (`fcm-emu ca`).
    public let caCertificatePath: String

    private init(listener: Listener, caCertificatePath: String) {
        self.listener = listener
        self.caCertificatePath = caCertificatePath
    }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 5235
        public var laxAuth = false
        public var maxStanzaBytes = XMPPFramer.defaultMaxStanzaBytes
        /// Whitespace keepalive interval; zero turns it off.
        public var keepaliveSeconds: Int64 = 30
        /// After CONNECTION_DRAINING, how long in-flight traffic may finish before the server closes.
        public var drainGraceMillis: Int64 = 2000
        /// Drain every connection this long after it binds (CCS's periodic load balancing); nil: never.
        public var drainAfterSeconds: Int64?
        /// Nacks and control messages as `<data:gcm xmlns:data=…>` (the reference's form); off, `<gcm>`.
        public var prefixedForm = true
        /// A connection must have logged in and bound within this long, or it is closed.
        public var loginTimeoutSeconds: Int64 = 30
        /// A connection the client has sent nothing on for this long is closed (whitespace
        /// keepalives count); zero turns it off.
        public var idleTimeoutSeconds: Int64 = 600

        public init() {}

        /// What each connection needs to know of it.
        var connection: CCSConnection.Configuration {
            CCSConnection.Configuration(laxAuth: laxAuth, maxStanzaBytes: maxStanzaBytes, prefixedForm: prefixedForm)
        }
    }

    /// CCS's hosts, which this listener stands in for: its certificate covers them, and the proxy
    /// joins a CONNECT to one of them on a port of `fcmPorts` to the listener for that port.
    public static let hosts = ["fcm-xmpp.googleapis.com", "gcm-xmpp.googleapis.com", "gcm.googleapis.com", "gcm-preprod.googleapis.com"]
    /// FCM's production and testing ports, in the order of the `xmppPort` and `xmppTestPort` settings.
    public static let fcmPorts = [5235, 5236]

    /// - Parameter tlsDirectory: where the local CA lives; the listener presents a certificate
    ///   from it for `hosts`, as the HTTPS port does for its own (`TLSFiles`).
    public static func start(
        configuration: Configuration, tlsDirectory: String, emulator: Emulator, router: CCSRouter, group: any EventLoopGroup,
        logger: Logger
    ) async throws -> XMPPServer {
        // CCS negotiates no application protocol.
        let (tls, caPath) = try TLSFiles.serverContext(directory: tlsDirectory, hosts: hosts, alpn: [])
        let floor = ConnectionFloor(idle: idle(configuration), tls: tls, logger: logger)
        let listener = try await Listener.bind(host: configuration.host, port: configuration.port, group: group, floor: floor) {
            channel in
            channel.eventLoop.makeCompletedFuture {
                try addCCS(
                    channel.pipeline.syncOperations, emulator: emulator, router: router, configuration: configuration, logger: logger)
            }
        }
        logger.info("XMPP (CCS, TLS) listening", metadata: ["address": "\(configuration.host):\(listener.port)"])
        return XMPPServer(listener: listener, caCertificatePath: caPath)
    }

    /// A connection silent this long gets `connection-timeout`: only what the client sends counts
    /// (whitespace keepalives included), as on CCS.
    private static func idle(_ configuration: Configuration) -> ConnectionFloor.Idle {
        configuration.idleTimeoutSeconds > 0 ? .readsOnly(.seconds(configuration.idleTimeoutSeconds)) : .never
    }

    /// A CCS connection as the listener builds it less TLS, on a test's `EmbeddedChannel`: the
    /// floor (idle timeout; back pressure, so a client that sends and never reads stops being
    /// read), then CCS.
    static func configureConnection(
        _ sync: ChannelPipeline.SynchronousOperations, emulator: Emulator, router: CCSRouter, configuration: Configuration,
        logger: Logger
    ) throws {
        try ConnectionFloor(idle: idle(configuration), logger: logger).add(to: sync)
        try addCCS(sync, emulator: emulator, router: router, configuration: configuration, logger: logger)
    }

    /// CCS itself: the stanza decoder, then the connection's handler.
    private static func addCCS(
        _ sync: ChannelPipeline.SynchronousOperations, emulator: Emulator, router: CCSRouter, configuration: Configuration,
        logger: Logger
    ) throws {
        try sync.addHandler(ByteToMessageHandler(XMPPStreamDecoder(maxStanzaBytes: configuration.connection.maxStanzaBytes)))
        try sync.addHandler(XMPPConnectionHandler(emulator: emulator, router: router, configuration: configuration, logger: logger))
    }

    /// Stops accepting, then ends every open stream with `system-shutdown` (RFC 6120 §4.9.3.17)
    /// rather than a bare TCP close; what has not closed after the grace period is closed.
    public func close() async { await listener.close() }

    /// `close` begun: the task ends when the connections have (`Listener.beginClose`).
    public func beginClose() async -> Task<Void, Never> { await listener.beginClose() }
}
