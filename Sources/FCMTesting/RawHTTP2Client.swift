// SPDX-License-Identifier: Apache-2.0

import FCMTransport
import NIOCore
import NIOPosix
import NIOSSL

/// An HTTP/2 client over TLS that writes frames byte by byte and reads every frame the server
/// sends, for tests of what a client that does not wait for SETTINGS meets: it can open more
/// streams than the server advertised, which NIO's own client (rightly) never does.
public final class RawHTTP2Client: Sendable {
    /// A frame as read (RFC 9113 §4.1), or the end of the connection.
    public enum Event: Sendable, Equatable {
        case frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])
        case closed
    }

    /// A GOAWAY's fields (RFC 9113 §6.8).
    public struct GoAway: Equatable {
        public let lastStreamID: UInt32
        public let errorCode: UInt32
        public let debugData: String

        public init(lastStreamID: UInt32, errorCode: UInt32, debugData: String) {
            self.lastStreamID = lastStreamID
            self.errorCode = errorCode
            self.debugData = debugData
        }
    }

    public let channel: any Channel
    public let events: AsyncStream<Event>

    private init(channel: any Channel, events: AsyncStream<Event>) {
        self.channel = channel
        self.events = events
    }

    /// Connects with ALPN h2 (the emulator's CA is not checked) and sends the preface and a
    /// SETTINGS frame with `settings` (RFC 9113 §6.5.1: identifier, value), empty by default,
    /// then `frames` in the same write (for tests whose server would let a connection that
    /// waits go idle).
    public static func connect(port: Int, settings: [(UInt16, UInt32)] = [], then frames: [UInt8] = []) async throws -> RawHTTP2Client {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let channel = try await tlsChannel(port: port, alpn: "h2", reader: FrameReader(continuation))
        let client = RawHTTP2Client(channel: channel, events: events)
        let payload = settings.flatMap { withUnsafeBytes(of: $0.0.bigEndian, Array.init) + withUnsafeBytes(of: $0.1.bigEndian, Array.init) }
        try await client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: 0x4, flags: 0, stream: 0, payload: payload) + frames)
        return client
    }

    /// Sends `request` over TLS with ALPN http/1.1 and answers everything the server wrote until it
    /// closed the connection.
    public static func http1(port: Int, _ request: String) async throws -> String {
        let (bytes, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let channel = try await tlsChannel(port: port, alpn: "http/1.1", reader: ByteReader(continuation))
        try await channel.writeAndFlush(ByteBuffer(string: request))
        var answer = ""
        for await chunk in bytes { answer += String(buffer: chunk) }
        return answer
    }

    private static func tlsChannel(port: Int, alpn: String, reader: some ChannelInboundHandler & Sendable) async throws -> any Channel {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = [alpn]
        let context = try NIOSSLContext(configuration: tls)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try channel.pipeline.syncOperations.addHandler(reader)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Hands on the decrypted bytes as they come, and ends with the connection.
    private final class ByteReader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let continuation: AsyncStream<ByteBuffer>.Continuation

        init(_ continuation: AsyncStream<ByteBuffer>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { continuation.yield(unwrapInboundIn(data)) }
        func channelInactive(context: ChannelHandlerContext) { continuation.finish() }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// One frame's bytes.
    public static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags]
            + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }

    /// A HEADERS frame (END_HEADERS; END_STREAM when `endStream`) posting to `path`, its header
    /// block in HPACK literals without indexing (RFC 7541 §6.2.2), so no table is shared.
    public static func post(stream: UInt32, path: String, endStream: Bool = false, extra: [(String, String)] = []) -> [UInt8] {
        headers(
            stream: stream,
            [
                (":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "127.0.0.1"),
                ("authorization", "Bearer any"), ("content-type", "application/json"),
            ] + extra, endStream: endStream)
    }

    /// A HEADERS frame that asks GET `path` and ends the stream.
    public static func get(stream: UInt32, path: String, authority: String = "127.0.0.1", extra: [(String, String)] = []) -> [UInt8] {
        headers(stream: stream, [(":method", "GET"), (":scheme", "https"), (":path", path), (":authority", authority)] + extra, endStream: true)
    }

    /// A HEADERS frame (END_HEADERS; END_STREAM when `endStream`) with `fields`, in HPACK literals
    /// without indexing (RFC 7541 §6.2.2): names and values under 128 bytes each.
    public static func headers(stream: UInt32, _ fields: [(String, String)], endStream: Bool) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            block += [0x00, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
        }
        return frame(type: 0x1, flags: endStream ? 0x5 : 0x4, stream: stream, payload: block)
    }

    /// A DATA frame that ends the stream.
    public static func data(stream: UInt32, _ body: String) -> [UInt8] {
        frame(type: 0x0, flags: 0x1, stream: stream, payload: Array(body.utf8))
    }

    /// Reads to the end of the connection: the server's GOAWAY, if it sent one, and whether the
    /// connection ended.
    public func goAwayAndEnd() async -> (goAway: GoAway?, closed: Bool) {
        var goAway: GoAway?
        for await event in events {
            switch event {
            case .frame(0x7, _, _, let payload): goAway = Self.goAway(payload)
            case .frame: continue
            case .closed: return (goAway, true)
            }
        }
        return (goAway, false)
    }

    public static func goAway(_ payload: [UInt8]) -> GoAway? {
        guard payload.count >= 8 else { return nil }
        func word(_ at: Int) -> UInt32 { payload[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        return GoAway(
            lastStreamID: word(0) & 0x7fff_ffff, errorCode: word(4), debugData: String(decoding: payload[8...], as: UTF8.self))
    }

    /// Splits the decrypted bytes into frames.
    private final class FrameReader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private var pending = ByteBuffer()
        private let continuation: AsyncStream<Event>.Continuation

        init(_ continuation: AsyncStream<Event>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            pending.writeBuffer(&bytes)
            while pending.readableBytes >= 9,
                let length = pending.getInteger(at: pending.readerIndex, as: UInt32.self).map({ Int($0 >> 8) }),
                pending.readableBytes >= 9 + length,
                let header = pending.readBytes(length: 9),
                let payload = pending.readBytes(length: length)
            {
                let stream = header[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
                continuation.yield(.frame(type: header[3], flags: header[4], stream: stream, payload: payload))
            }
            pending.discardReadBytes()
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.yield(.closed)
            continuation.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
