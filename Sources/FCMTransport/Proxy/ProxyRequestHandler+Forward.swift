// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1

/// Plain HTTP through the proxy (a request in absolute form, RFC 9112 §3.2.2), for a host the
/// emulator does not answer: `exec` sets `http_proxy` for clients whose HTTP library reads only it
/// (Ruby's httpclient 2.8), so the command's plain HTTP to its own services comes here too. It
/// goes where a CONNECT to the same host and port may go (`TunnelPolicy`), or is refused with the
/// same 403; a name the emulator stands in for never leaves (`StandIns.answersPlainHTTP`).
///
/// The request is read to its end (at most `bodyLimit` bytes of body, so a chunked one can be
/// sent on with its length), written to the origin in origin form with `Connection: close`, and
/// the connection then becomes a relay like a tunnel: the origin's answer goes back byte for
/// byte, and the origin's close closes the client's connection. One request per connection.
struct PlainForward {
    static let bodyLimit = 4 << 20

    let host: String
    let port: Int
    /// `host[:port]` as the request named it: the `Host` the origin is sent (RFC 9112 §3.2.2).
    let authority: String
    let head: HTTPRequestHead
    let target: String
    var body: ByteBuffer
    /// Over the body limit: the rest is dropped as it arrives, and the end refused.
    var refused = false

    /// The plain-HTTP request to forward, or nil when the emulator answers it itself or it is not
    /// plain HTTP to a host.
    init?(head: HTTPRequestHead, standIns: StandIns, allocator: ByteBufferAllocator) {
        guard let origin = ProxyRequestHandler.originForm(head.uri), let named = origin.host,
            head.uri.lowercased().hasPrefix("http://")
        else { return nil }
        let authority = named.split(separator: "@").last.map(String.init) ?? named
        let (host, port) = ProxyRequestHandler.authority(authority) ?? (HostRules.bare(authority), 80)
        guard !host.isEmpty, !standIns.answersPlainHTTP(host) else { return nil }
        self.host = host
        self.port = port
        self.authority = authority
        self.head = head
        self.target = origin.target
        body = allocator.buffer(capacity: 0)
    }

    var name: String { "\(host):\(port)" }

    /// Hop-by-hop fields (RFC 9110 §7.6.1), the proxy's own, and the framing and `Host` this
    /// request is sent with instead.
    private static let dropped: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "expect", "host",
    ]

    /// The request as the origin receives it: origin form, the URI's `Host`, the body's length,
    /// `Connection: close`; fields that `Connection` names are hop-by-hop too.
    func request(allocator: ByteBufferAllocator) -> ByteBuffer {
        let named = Set(head.headers["Connection"].flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() })
        var text = "\(head.method.rawValue) \(target) HTTP/\(head.version.major).\(head.version.minor)\r\nHost: \(authority)\r\n"
        for (field, value) in head.headers where !Self.dropped.contains(field.lowercased()) && !named.contains(field.lowercased()) {
            text += "\(field): \(value)\r\n"
        }
        let framed = head.headers.contains(name: "Content-Length") || head.headers.contains(name: "Transfer-Encoding")
        if framed || body.readableBytes > 0 { text += "Content-Length: \(body.readableBytes)\r\n" }
        text += "Connection: close\r\n\r\n"
        var buffer = allocator.buffer(capacity: text.utf8.count + body.readableBytes)
        buffer.writeString(text)
        buffer.writeImmutableBuffer(body)
        return buffer
    }
}

extension ProxyRequestHandler {
    /// A part of a plain-HTTP request being forwarded: kept (bounded), or, at its end, sent on. A
    /// body over the limit is read to its end and dropped, then refused: a client still writing
    /// when the proxy closed would get a reset, not the answer.
    func forwardPart(_ part: HTTPServerRequestPart, of plain: PlainForward, context: ChannelHandlerContext) {
        var plain = plain
        switch part {
        case .head:
            return
        case .body(var bytes):
            guard !plain.refused else { return }
            guard plain.body.readableBytes + bytes.readableBytes <= PlainForward.bodyLimit else {
                plain.refused = true
                plain.body.clear()
                forwarding = plain
                return
            }
            plain.body.writeBuffer(&bytes)
            forwarding = plain
        case .end:
            forwarding = nil
            guard !plain.refused else {
                note("plain HTTP refused \(plain.name) (body over \(PlainForward.bodyLimit) bytes)")
                refuse(
                    context: context, status: .payloadTooLarge,
                    text: "fcm-emu's proxy forwards plain HTTP with a body of at most \(PlainForward.bodyLimit) bytes; "
                        + "send to \(plain.name) around it: add \(plain.host) to NO_PROXY (and no_proxy).\n")
                return
            }
            opening = true
            open((plain.host, plain.port), context: context, request: plain.request(allocator: context.channel.allocator))
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
