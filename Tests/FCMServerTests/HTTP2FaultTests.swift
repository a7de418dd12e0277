// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMTesting
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Testing

@Suite("Transport faults over HTTP/2")
struct HTTP2FaultTests {
    /// A `reset` fault stands for a dropped connection: Node retries ECONNRESET and Go any network
    /// error (firebase-admin-node `src/utils/api-request.ts`, firebase-admin-go `internal/http_client.go`),
    /// but a reset stream alone is an answer they do not retry. Over HTTP/2 the whole connection
    /// must go, not just the stream (firebase-admin-node ≥ 12.3 sends `sendEach` over h2).
    @Test func injectedResetClosesTheConnectionNotJustTheStream() async throws {
        try await withLiveServer(tls: true) { server in
            try server.emulator.setFaultRules([FaultRule(id: "reset", match: .init(api: .v1, nth: 1), action: .reset)])
            let https = try #require(server.https)
            let connection = try await Self.connect(port: https.port)
            // The stream ends either way: by RST_STREAM alone, or because its connection closed.
            try await Self.post(on: connection, path: "/v1/projects/demo-fcm-emu/messages:send").get()
            #expect(!connection.isActive)
            try? await connection.close()
        }
    }

    /// TLS with ALPN h2 (the emulator's own CA is not checked here) and a client HTTP/2 pipeline.
    private static func connect(port: Int) async throws -> any Channel {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .client, inboundStreamInitializer: nil).map { _ in () }
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Opens a stream, posts `{}` with a bearer, and completes when the stream is closed.
    private static func post(on connection: any Channel, path: String) -> EventLoopFuture<Void> {
        connection.eventLoop.flatSubmit {
            let streamPromise = connection.eventLoop.makePromise(of: Channel.self)
            do {
                let multiplexer = try connection.pipeline.syncOperations.handler(type: HTTP2StreamMultiplexer.self)
                multiplexer.createStreamChannel(promise: streamPromise) { stream in
                    stream.pipeline.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                }
            } catch {
                streamPromise.fail(error)
            }
            return streamPromise.futureResult.flatMap { stream in
                var headers = HTTPHeaders([("host", "127.0.0.1"), ("authorization", "Bearer any"), ("content-type", "application/json")])
                headers.add(name: "content-length", value: "2")
                let head = HTTPRequestHead(version: .http2, method: .POST, uri: path, headers: headers)
                stream.write(HTTPClientRequestPart.head(head), promise: nil)
                stream.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: "{}"))), promise: nil)
                stream.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                return stream.closeFuture
            }
        }
    }
}
