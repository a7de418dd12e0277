// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1
import NIOPosix

/// Opening a tunnel: deciding where it may go (`TunnelPolicy`), resolving the name off the event
/// loop, connecting to the very address that was checked (so a name cannot resolve elsewhere
/// between the check and the connect), and swapping the HTTP handlers for a relay.
extension ProxyRequestHandler {
    /// - Parameter request: a plain-HTTP request to send on (`PlainForward`), where a CONNECT has none.
    func open(_ target: (host: String, port: Int), context: ChannelHandlerContext, request: ByteBuffer? = nil) {
        let name = "\(target.host):\(target.port)"
        // A forward's lines and events say so: "plain HTTP forwarded example.com:80".
        let kind = request == nil ? "" : "plain HTTP "
        if request == nil, let local = configuration.standIns.port(for: target.host, target.port) {
            note("intercepted \(name)")
            do {
                connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: local), name: name, context: context, request: nil)
            } catch {
                refuse(context: context, status: .badGateway, text: "fcm-emu's proxy could not reach \(name): \(error)\n")
            }
            return
        }
        guard let admission = configuration.tunnel.admits(host: target.host, port: target.port) else {
            note(kind + "refused \(name)")
            refuse(context: context, status: .forbidden, text: Self.notStoodInFor(target.host, name: name, standIns: configuration.standIns))
            return
        }
        // The proxy's own port too (the connection's local one); a constant the resolver's
        // completion may read on any thread.
        let ownPorts = configuration.ownPorts.union(context.channel.localAddress?.port.map { [$0] } ?? [])
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        // getaddrinfo and getifaddrs block: a thread of the pool, not the event loop.
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
            let address = try SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
            let interfaces = (try? System.enumerateDevices())?.compactMap(\.address) ?? []
            return (address, TunnelPolicy.isThisMachine(address, interfaces: interfaces))
        }.whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .failure(let error):
                handler.note(kind + "refused \(name) (not resolved)")
                handler.refuse(context: context, status: .badGateway, text: "fcm-emu's proxy could not resolve \(target.host): \(error)\n")
            case .success((let address, true)) where ownPorts.contains(target.port):
                handler.note(kind + "refused \(name) (fcm-emu's own port)")
                handler.refuse(
                    context: context, status: .forbidden,
                    text: "fcm-emu's proxy does not tunnel to \(name) (\(address)): that is one of fcm-emu's own ports, and a "
                        + "tunnel to itself could chain without end.\n")
            case .success((let address, true)) where admission != .exactWithPort:
                handler.note(kind + "refused \(name) (this machine)")
                handler.refuse(
                    context: context, status: .forbidden,
                    text: "fcm-emu's proxy does not tunnel to \(name): \(address) is on this machine. To let it through, name it "
                        + "with its port: --set proxyTunnelHosts=\(name)\n")
            case .success((let address, _)):
                handler.note(kind + (request == nil ? "tunnelled \(name)" : "forwarded \(name)"))
                handler.connect(to: address, name: name, context: context, request: request)
            }
        }
    }

    static func notStoodInFor(_ host: String, name: String, standIns: StandIns) -> String {
        "fcm-emu's proxy does not stand in for \(name). It answers for \(standIns.hosts(on: 443).joined(separator: ", ")) "
            + "(port 443) and the XMPP hosts on 5235/5236. Add \(host) to NO_PROXY, or let the proxy tunnel it untouched: "
            + "--set proxyTunnelHosts=\(host) (a comma list; host, host:port or *.domain), or --set proxyTunnel=true for any "
            + "host off this machine (when listening on loopback only).\n"
    }

    private func connect(to address: SocketAddress, name: String, context: ChannelHandlerContext, request: ByteBuffer?) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(.seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(to: address)
            .whenComplete { result in
                let (handler, context) = loopBound.value
                switch result {
                case .success(let remote): handler.join(remote, context: context, request: request)
                case .failure(let error):
                    handler.refuse(context: context, status: .badGateway, text: "fcm-emu's proxy could not reach \(name): \(error)\n")
                }
            }
    }

    /// Answers a CONNECT's 200, or sends a plain-HTTP request on, then swaps the HTTP handlers for
    /// a relay to `remote`.
    private func join(_ remote: any Channel, context: ChannelHandlerContext, request: ByteBuffer?) {
        guard context.channel.isActive else {
            remote.close(promise: nil)
            return
        }
        let (local, far) = GlueHandler.pair()
        do {
            try remote.pipeline.syncOperations.addHandler(far)
            try context.pipeline.syncOperations.addHandler(local)
        } catch {
            remote.close(promise: nil)
            context.close(promise: nil)
            return
        }
        if let request {
            // The origin's answer comes back through the relay, byte for byte.
            remote.writeAndFlush(request, promise: nil)
        } else {
            // No Content-Length: a 2xx to CONNECT has none (RFC 9110 §9.3.6); the tunnel follows it.
            let head = HTTPResponseHead(version: .http1_1, status: .ok)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        let pipeline = context.pipeline
        var removal = context.eventLoop.makeSucceededVoidFuture()
        for name in Names.removedForTunnel { removal = removal.flatMap { pipeline.removeHandler(name: name) } }
        removal.whenComplete { result in
            switch result {
            case .success:
                // What the decoder held came out into the relay as a read with no read-complete
                // after it: send it on now (a client that sent its ClientHello with the CONNECT
                // waited for ever), and read again, which stopped while the tunnel opened.
                remote.flush()
                pipeline.read()
            case .failure:
                remote.close(promise: nil)
                pipeline.close(promise: nil)
            }
        }
    }
}
