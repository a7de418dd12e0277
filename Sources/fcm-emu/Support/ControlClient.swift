// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few requests the CLI makes to a running emulator (`health`, `env`, `credentials`, `exec
/// --attach`), over plain
/// HTTP/1.1 with SwiftNIO. Not URLSession: FoundationNetworking would bring libcurl into a binary
/// that must run on its own.
struct ControlClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Answer: Sendable {
        let status: Int
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The largest answer read: a key file or `info` is a few KiB.
    static let maxBody = 4 << 20

    let host: String
    let port: Int
    /// A path prefix the base URL carried (`http://host:port/prefix`), put before every path.
    let prefix: String
    /// Sent as `Authorization: Bearer` when set: `$FCM_EMU_CONTROL_TOKEN` (the name `serve` reads
    /// its `controlToken` setting from too).
    var controlToken: String? = ProcessInfo.processInfo.environment["FCM_EMU_CONTROL_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }

    /// `http://host[:port][/prefix]`; IPv6 hosts in brackets. Only plain HTTP: the control API
    /// and the emulator's own paths are served there.
    init(base: String) throws(Failure) {
        guard base.hasPrefix("http://") else {
            throw Failure(description: "\(base): the emulator's address must be an http:// URL such as http://127.0.0.1:9092")
        }
        var rest = Substring(base.dropFirst("http://".count))
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        rest = rest[slash...]
        var portText: Substring = "80"
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Failure(description: "\(base): unclosed [ in the host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw Failure(description: "\(base): bad port") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard let port = Int(portText), (1...65535).contains(port), !host.isEmpty else {
            throw Failure(description: "\(base): expected http://HOST:PORT, e.g. http://127.0.0.1:9092")
        }
        self.port = port
        prefix = String(rest.hasSuffix("/") ? rest.dropLast() : rest)
    }

    /// One GET on a fresh connection; a refused connection or a timeout throws.
    func get(_ path: String, timeout: TimeAmount = .seconds(10)) async throws -> Answer {
        try await send("GET", path, timeout: timeout)
    }

    /// One request on a fresh connection, with `json` as an `application/json` body (the only
    /// kind the control API reads: docs/security.md); a refused connection or a timeout throws.
    func send(
        _ method: String, _ path: String, json: [UInt8]? = nil, headers extra: [(String, String)] = [], timeout: TimeAmount = .seconds(10)
    ) async throws -> Answer {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            // NIO's connection error lists every address tried; one line says what a user needs.
            let refused = (error as? NIOConnectionError)?.connectionErrors.allSatisfy { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(prefix)"
            throw Failure(
                description: refused == true
                    ? "no emulator at \(url) (connection refused); start one with `fcm-emu serve`, or give its address with --emulator"
                    : "cannot reach the emulator at \(url): \(error)")
        }
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var headers: HTTPHeaders = ["Host": hostHeader, "Accept": "application/json", "Connection": "close", "User-Agent": "fcm-emu-cli"]
        // An emulator listening beyond loopback asks for its control token (docs/security.md).
        if let token = controlToken { headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        if let json {
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(json.count))
        }
        let head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: prefix + path, headers: headers)
        let deadline = channel.channel.eventLoop.scheduleTask(in: timeout) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            // One write: a GET is complete with its head, so the emulator may answer and close
            // before a separate `.end` was written, which then failed ("I/O on closed channel").
            let payload = json.map { [HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: $0)))] } ?? []
            try await outbound.write(contentsOf: [.head(head)] + payload + [.end(nil)])
            var status = 0
            var body: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body(let bytes):
                    guard body.count + bytes.readableBytes <= Self.maxBody else {
                        throw Failure(description: "\(path): the answer is larger than \(Self.maxBody) bytes")
                    }
                    body += bytes.readableBytesView
                case .end: return Answer(status: status, body: body)
                }
            }
            throw Failure(description: "\(path): the emulator closed the connection before answering (timeout \(timeout))")
        }
    }
}
