// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1

/// The proxy port's front, behind the same HTTP/1.1 pipeline as the plain port
/// (`HTTPServer.configurePlainHTTP`: idle timeout, backpressure, `HTTP1Connection`): a `CONNECT`
/// to one of Google's hosts is joined to the emulator's own port for it, whose certificate covers
/// the name, so the client's TLS, ALPN (h2 or http/1.1) and requests reach the same routes as the
/// TLS port; a `CONNECT` elsewhere is tunnelled as `TunnelPolicy` allows, or refused with a 403
/// that says which setting lets it through. A request in absolute form to the metadata server or
/// one of Google's names (`GET http://169.254.169.254/…`) is answered by the routes directly; one
/// to any other host is forwarded where a CONNECT could go (`PlainForward`). Every CONNECT and
/// forward is a `proxyConnect` event and a log line.
final class ProxyRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    struct Configuration: Sendable {
        /// The hosts the proxy answers for and the local ports that serve them.
        var standIns: StandIns
        var tunnel = TunnelPolicy()
        /// fcm-emu's listening ports, never tunnelled to (the proxy's own is also the connection's local port).
        var ownPorts: Set<Int> = []
    }

    /// The handlers of the proxy port's pipeline that a tunnel replaces.
    enum Names {
        static let backPressure = ConnectionFloor.backPressureName, decoder = "http-decoder", connection = "http-connection"
        static let proxy = "proxy-requests", routes = "http-routes"
        /// The emulator's own request decoder, until it hands over to llhttp's (`decoder`).
        static let reader = "http-request-reader"
        /// In this order; the decoder last, so that the bytes it holds after the CONNECT (a
        /// ClientHello sent in the same packet) come out into the tunnel.
        static let removedForTunnel = [routes, connection, proxy, backPressure, decoder]
    }

    let configuration: Configuration
    /// Where what the proxy did with a request is recorded (the emulator's event log).
    private let record: @Sendable (String) -> Void
    private let logger: Logger
    /// A CONNECT being read: where to, once its `.end` arrives.
    private var connect: (host: String, port: Int)?
    /// A plain-HTTP request to a host the emulator does not answer, read before it is forwarded.
    var forwarding: PlainForward?
    /// A tunnel is being opened: nothing more is read until it is (or is refused), so a peer
    /// cannot pile bytes up behind its CONNECT meanwhile.
    var opening = false

    init(configuration: Configuration, record: @escaping @Sendable (String) -> Void, logger: Logger) {
        self.configuration = configuration
        self.record = record
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
                opening = true
                open(target, context: context)
            }
            return
        }
        if let plain = forwarding {
            forwardPart(part, of: plain, context: context)
            return
        }
        if case .head(let head) = part, let plain = PlainForward(head: head, standIns: configuration.standIns, allocator: context.channel.allocator) {
            forwarding = plain
            return
        }
        if case .head(var head) = part, let origin = Self.originForm(head.uri) {
            // Absolute form, as clients send plain-HTTP requests through a proxy, to a name the
            // emulator answers: the URI's host is the request's (RFC 9112 §3.2.2), in lower case as
            // the access policy compares it (a host is case-insensitive, RFC 3986 §3.2.2).
            if let host = origin.host { head.headers.replaceOrAdd(name: "Host", value: host.lowercased()) }
            head.uri = origin.target
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    /// A read asked for while a tunnel opens is dropped; the tunnel asks again once it is up.
    func read(context: ChannelHandlerContext) {
        if !opening { context.read() }
    }

    func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, text: String) {
        connect = nil
        opening = false
        let body = context.channel.allocator.buffer(string: text)
        let headers: HTTPHeaders = [
            "Content-Type": "text/plain; charset=UTF-8", "Content-Length": "\(body.readableBytes)", "Connection": "close",
        ]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    func note(_ what: String) {
        record(what)
        logger.info("proxy \(what.hasPrefix("plain HTTP") ? "" : "CONNECT ")\(what)")
    }

    /// `host:port` of a CONNECT (`[::1]:443` too).
    static func authority(_ uri: String) -> (host: String, port: Int)? {
        guard let colon = uri.lastIndex(of: ":"), let port = Int(uri[uri.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        let host = HostRules.bare(String(uri[..<colon]))
        return host.isEmpty ? nil : (host, port)
    }

    /// `http://host[:port]/path?query` → the host and `/path?query`; nil for origin-form targets.
    static func originForm(_ uri: String) -> (host: String?, target: String)? {
        guard let scheme = uri.firstRange(of: "://"), uri.lowercased().hasPrefix("http") else { return nil }
        let rest = uri[scheme.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = String(rest[..<slash])
        let target = slash == rest.endIndex ? "/" : String(rest[slash...])
        return (host.isEmpty ? nil : host, target)
    }
}

@available(*, unavailable)
extension ProxyRequestHandler: Sendable {}
