// SPDX-License-Identifier: Apache-2.0

import FCMTransport
import Logging
import NIOCore
import NIOEmbedded

/// One connection of the plain port's HTTP/1.1 pipeline (`HTTPServer.configurePlainHTTP`: the
/// connection floor, the request decoder, `HTTP1Connection`, the request handler) on an
/// `EmbeddedChannel`, without a socket: bytes in as a client's reads, bytes out as the socket's
/// writes. For the fuzzer, which cannot reach the transport's package API from its own package.
/// Used on one thread.
public final class HTTP1Wire {
    private let channel = EmbeddedChannel()

    public init(responder: HTTPResponder) throws {
        let quiet = Logger(label: "http1-wire") { _ in SwiftLogNoOpLogHandler() }
        try HTTPServer.configurePlainHTTP(channel.pipeline.syncOperations, responder: responder, idleTimeout: .seconds(120), logger: quiet)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { channel.isActive }

    /// Delivers `bytes` as one read of the socket (nothing, once the connection is closed), then
    /// lets the pipeline run and read again as long as it writes, as the socket's next reads
    /// would; returns what it wrote.
    public func feed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if channel.isActive { _ = try? channel.writeInbound(channel.allocator.buffer(bytes: bytes)) }
        var written: [UInt8] = []
        while true {
            channel.embeddedEventLoop.run()
            var progressed = false
            while let buffer = try? channel.readOutbound(as: ByteBuffer.self) {
                written += buffer.readableBytesView
                progressed = true
            }
            guard progressed, channel.isActive else { return written }
            channel.read()
        }
    }

    /// Closes the connection, as a client that goes away; what the pipeline wrote on the way.
    public func close() -> [UInt8] {
        if channel.isActive { _ = try? channel.close().wait() }
        return feed([])
    }
}

@available(*, unavailable)
extension HTTP1Wire: Sendable {}
