// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The proxy port's first handler (issue 10): a `CONNECT` to one of Google's hosts is joined to
/// the emulator's own port for it, whose certificate covers the name, so the client's TLS, ALPN
/// (h2 or http/1.1) and requests reach the same routes as the TLS port; a `CONNECT` elsewhere is
/// refused with a 403 that says how to let it through, or tunnelled to the real host when
/// `proxyTunnel` is on. A request in absolute form (`GET http://metadata.google.internal/…`) is
/// answered by the routes directly. Every CONNECT is a `proxyConnect` event and a log line.
final class ProxyRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    struct Configuration: Sendable {
        var targets: ProxyHosts.Targets
        /// Tunnel hosts fcm-emu does not stand in for, instead of refusing them.
        var tunnelOthers = false
    }

    static let names = (encoder: "proxy-http-encoder", decoder: "proxy-http-decoder", handler: "proxy-requests", routes: "proxy-routes")

    private let configuration: Configuration
    private let emulator: Emulator
    private let logger: Logger
    /// A CONNECT being read: where to, once its `.end` arrives.
    private var connect: (host: String, port: Int)?

    init(configuration: Configuration, emulator: Emulator, logger: Logger) {
        self.configuration = configuration
        self.emulator = emulator
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part, head.method == .CONNECT {
            connect = Self.authority(head.uri)
            if connect == nil { refuse(context: context, status: .badRequest, text: "CONNECT needs host:port, got '\(head.uri)'\n") }
            return
        }
        if let target = connect {
            if case .end = part {
                connect = nil
                open(target, context: context)
            }
            return
        }
        if case .head(var head) = part, let origin = Self.originForm(head.uri) {
            // Absolute form, as clients send plain-HTTP requests through a proxy.
            if let host = origin.host, !head.headers.contains(name: "Host") { head.headers.add(name: "Host", value: host) }
            head.uri = origin.target
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    private func open(_ target: (host: String, port: Int), context: ChannelHandlerContext) {
        let name = "\(target.host):\(target.port)"
        let destination: (host: String, port: Int)
        if let local = configuration.targets.port(for: target.host, target.port) {
            destination = ("127.0.0.1", local)
            note("intercepted \(name)")
        } else if configuration.tunnelOthers {
            destination = target
            note("tunnelled \(name)")
        } else {
            note("refused \(name)")
            refuse(
                context: context, status: .forbidden,
                text: "fcm-emu's proxy does not stand in for \(name). It answers for \(ProxyHosts.https.joined(separator: ", ")) "
                    + "(port 443) and the XMPP hosts on 5235/5236. Add \(target.host) to NO_PROXY, or start the emulator with "
                    + "--set proxyTunnel=true to tunnel other hosts untouched.\n")
            return
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(.seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: destination.host, port: destination.port)
            .whenComplete { result in
                let (handler, context) = loopBound.value
                switch result {
                case .success(let remote): handler.join(remote, context: context)
                case .failure(let error):
                    handler.refuse(context: context, status: .badGateway, text: "fcm-emu's proxy could not reach \(name): \(error)\n")
                }
            }
    }

    /// Answers 200, then swaps the HTTP handlers for a relay to `remote`.
    private func join(_ remote: any Channel, context: ChannelHandlerContext) {
        let (local, far) = GlueHandler.pair()
        do {
            try remote.pipeline.syncOperations.addHandler(far)
            try context.pipeline.syncOperations.addHandler(local)
        } catch {
            remote.close(promise: nil)
            context.close(promise: nil)
            return
        }
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // Our handlers go first, so that bytes the decoder still holds reach the relay.
        let pipeline = context.pipeline
        let names = Self.names
        pipeline.removeHandler(name: names.routes)
            .flatMap { pipeline.removeHandler(name: names.handler) }
            .flatMap { pipeline.removeHandler(name: names.encoder) }
            .flatMap { pipeline.removeHandler(name: names.decoder) }
            .whenFailure { _ in
                remote.close(promise: nil)
                pipeline.close(promise: nil)
            }
    }

    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, text: String) {
        connect = nil
        let body = context.channel.allocator.buffer(string: text)
        let headers: HTTPHeaders = [
            "Content-Type": "text/plain; charset=UTF-8", "Content-Length": "\(body.readableBytes)", "Connection": "close",
        ]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func note(_ what: String) {
        emulator.recordProxyConnect(what)
        logger.info("proxy CONNECT \(what)")
    }

    /// `host:port` of a CONNECT (`[::1]:443` too).
    static func authority(_ uri: String) -> (host: String, port: Int)? {
        guard let colon = uri.lastIndex(of: ":"), let port = Int(uri[uri.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(uri[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// `http://host[:port]/path?query` → the host and `/path?query`; nil for origin-form targets.
    static func originForm(_ uri: String) -> (host: String?, target: String)? {
        guard let scheme = uri.range(of: "://"), uri.lowercased().hasPrefix("http") else { return nil }
        let rest = uri[scheme.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = String(rest[..<slash])
        let target = slash == rest.endIndex ? "/" : String(rest[slash...])
        return (host.isEmpty ? nil : host, target)
    }
}

@available(*, unavailable)
extension ProxyRequestHandler: Sendable {}
