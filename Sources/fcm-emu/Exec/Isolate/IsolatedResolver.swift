// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore
import NIOPosix

/// The resolver `/etc/resolv.conf` names under `exec --isolate`: UDP on 127.0.0.1:53 inside the
/// private network namespace. It answers Google's names with 127.0.0.1 (`IsolatedNames`) and every
/// other with NXDOMAIN, so a client that would have gone elsewhere fails at once, and it keeps the
/// names asked for the report. A packet that is not one standard query of at most 512 bytes is
/// dropped unanswered (`DNSQuestion`).
final class IsolatedResolver: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let names: IsolatedNames
    let log: LookupLog
    let emulator: Emulator

    init(names: IsolatedNames, log: LookupLog, emulator: Emulator) {
        self.names = names
        self.log = log
        self.emulator = emulator
    }

    /// Binds 127.0.0.1:`port` (53 in the namespace; 0 in tests) on the shared event loops.
    static func start(port: Int, names: IsolatedNames, log: LookupLog, emulator: Emulator) async throws -> Channel {
        let handler = IsolatedResolver(names: names, log: log, emulator: emulator)
        return try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard envelope.data.readableBytes <= DNSQuestion.maxQuery,
            let bytes = envelope.data.getBytes(at: envelope.data.readerIndex, length: envelope.data.readableBytes),
            let question = DNSQuestion(bytes)
        else { return }
        let (answer, report) = names.answer(question)
        // The event once per name, so a client that retries cannot fill the event log.
        if report, log.record(question.name) {
            emulator.recordProxyConnect("isolated: lookup \(LookupLog.printable(question.name)) refused")
        }
        let reply = context.channel.allocator.buffer(bytes: question.reply(answer))
        context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: reply)), promise: nil)
    }

    /// A failed send to one client (it went away) is no reason to stop answering the others.
    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}
