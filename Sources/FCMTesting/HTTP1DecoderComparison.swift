// SPDX-License-Identifier: Apache-2.0

import FCMTransport
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// A client's bytes read by the HTTP/1.1 ports' request decoder (`HTTP1RequestDecoder`) and by
/// NIO's llhttp decoder alone, for the tests and the fuzzer that hold the first to the second:
/// each decoder's parts and errors, one line each, with a body's pieces joined, as a channel of
/// its own saw them over `reads` and the close after them, up to the first error: what follows
/// it depends on how soon a decoder saw it (llhttp at the first wrong byte, the emulator's once
/// the head has come), and the connection ends with it (HTTP1Connection.swift).
public enum HTTP1DecoderComparison {
    /// What the emulator's decoder made of `reads`, then what llhttp made of them.
    public static func compare(_ reads: [ArraySlice<UInt8>]) -> (ours: [String], llhttp: [String]) {
        (
            decode(reads, with: HTTP1RequestDecoder(leftOverBytesStrategy: .dropBytes)),
            decode(reads, with: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
        )
    }

    private static func decode(_ reads: [ArraySlice<UInt8>], with decoder: some ChannelInboundHandler) -> [String] {
        let channel = EmbeddedChannel()
        let seen = Seen()
        do {
            try channel.pipeline.syncOperations.addHandler(decoder)
            try channel.pipeline.syncOperations.addHandler(seen)
        } catch {
            return ["pipeline: \(error)"]
        }
        for read in reads {
            // An error reaches `seen` through the pipeline, which keeps it from the channel.
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: read))
        }
        _ = try? channel.finish()
        guard let error = seen.lines.firstIndex(where: { $0.hasPrefix("error ") }) else { return seen.lines }
        return Array(seen.lines[...error])
    }

    private final class Seen: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var lines: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                let fields = head.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "|")
                lines.append("head \(head.method) \(head.uri) \(head.version) keep-alive=\(head.isKeepAlive) [\(fields)]")
            case .body(let body):
                if let last = lines.last, last.hasPrefix("body ") {
                    lines[lines.count - 1] = last + String(decoding: body.readableBytesView, as: UTF8.self)
                } else {
                    lines.append("body " + String(decoding: body.readableBytesView, as: UTF8.self))
                }
            case .end(let trailers):
                lines.append("end \(trailers.map { "\($0)" } ?? "-")")
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            lines.append("error \(error)")
        }
    }
}
