// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import NIOCore
import NIOEmbedded
import Testing

/// `FlushCoalescer`: a connection's flushes wait for the end of the event loop's turn and reach
/// the socket once; nothing written before a close or a removal is held back.
@Suite("Flushes coalesced per event-loop turn")
struct FlushCoalescerTests {
    /// Counts the flushes that get past the coalescer, as the socket would see them.
    final class SocketFlushes: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = NIOAny
        var count = 0
        func flush(context: ChannelHandlerContext) {
            count += 1
            context.flush()
        }
    }

    static func channel() throws -> (EmbeddedChannel, SocketFlushes) {
        let flushes = SocketFlushes()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(flushes)
        try channel.pipeline.syncOperations.addHandler(FlushCoalescer())
        return (channel, flushes)
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            texts.append(buffer.readString(length: buffer.readableBytes) ?? "")
        }
        return texts
    }

    @Test func aFlushWaitsForTheEndOfTheTurn() throws {
        let (channel, flushes) = try Self.channel()
        channel.write(channel.allocator.buffer(string: "answer"), promise: nil)
        channel.flush()
        #expect(try Self.written(channel) == [])
        #expect(flushes.count == 0)
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["answer"])
        #expect(flushes.count == 1)
    }

    @Test func flushesInOneTurnReachTheSocketOnce() throws {
        let (channel, flushes) = try Self.channel()
        for text in ["one", "two", "three"] {
            channel.write(channel.allocator.buffer(string: text), promise: nil)
            channel.flush()
        }
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["one", "two", "three"])
        #expect(flushes.count == 1)
        // The next turn's flush is a flush of its own.
        channel.writeAndFlush(channel.allocator.buffer(string: "four"), promise: nil)
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["four"])
        #expect(flushes.count == 2)
    }

    /// A connection over its write buffer's high-water mark (a peer that does not read) is flushed
    /// at once, so the kernel's push-back stops its reads as it did without the coalescer.
    @Test func aConnectionOverItsHighWaterMarkIsFlushedAtOnce() throws {
        let (channel, flushes) = try Self.channel()
        channel.isWritable = false
        channel.writeAndFlush(channel.allocator.buffer(string: "backed up"), promise: nil)
        #expect(try Self.written(channel) == ["backed up"])
        #expect(flushes.count == 1)
        channel.embeddedEventLoop.run()
        #expect(flushes.count == 1)
    }

    /// `writeAndFlush` then `close` in one turn (a `Connection: close` answer, a refusal) still
    /// sends the answer: the close flushes first.
    @Test func aCloseSendsWhatWasWrittenBeforeIt() throws {
        let (channel, flushes) = try Self.channel()
        channel.writeAndFlush(channel.allocator.buffer(string: "goodbye"), promise: nil)
        try channel.close().wait()
        #expect(flushes.count == 1)
        #expect(try Self.written(channel) == ["goodbye"])
        channel.embeddedEventLoop.run()
        #expect(flushes.count == 1)
    }

    @Test func removingTheHandlerFlushesWhatItHeld() throws {
        let (channel, flushes) = try Self.channel()
        channel.writeAndFlush(channel.allocator.buffer(string: "last"), promise: nil)
        let coalescer = try channel.pipeline.syncOperations.handler(type: FlushCoalescer.self)
        channel.pipeline.syncOperations.removeHandler(coalescer, promise: nil)
        #expect(try Self.written(channel) == ["last"])
        channel.embeddedEventLoop.run()
        #expect(flushes.count == 1)
    }
}
