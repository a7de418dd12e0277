// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client for live tests that need exact bytes: garbage, half requests, early
/// closes. Reads time out after a few seconds, so a wrong server can fail a test but not hang it.
public final class RawConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public struct Response {
        public let status: Int
        public let headers: [(String, String)]
        public let body: String

        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// - Parameter receiveBuffer: SO_RCVBUF, set before connecting so the window stays small and
    ///   a server's writes back up into its own buffers as soon as this side stops reading.
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "connect() failed") }
    }

    deinit { close(fd) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "write() failed") }
            offset += n
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { throw Failure(description: "read() timed out or failed") }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response with a Content-Length body.
    public func readResponse() throws -> Response {
        let (status, headers) = try readHead()
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        while buffer.count < length { guard try fill() else { throw Failure(description: "closed mid-body") } }
        let body = String(decoding: buffer[0..<length], as: UTF8.self)
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads a response's status line and headers, leaving its body unread.
    public func readHead() throws -> (status: Int, headers: [(String, String)]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { Array(buffer[$0..<$0 + 4]) == separator }
            if headEnd == nil { guard try fill() else { throw Failure(description: "closed before a response") } }
        }
        let end = headEnd ?? 0
        let lines = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(end + 4)
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    /// Reads at most `limit` bytes and throws them away: how many, 0 at end of stream.
    public func discard(upTo limit: Int) throws -> Int {
        if !buffer.isEmpty {
            let n = min(limit, buffer.count)
            buffer.removeFirst(n)
            return n
        }
        var chunk = [UInt8](repeating: 0, count: limit)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { throw Failure(description: "read() timed out or failed") }
        return n
    }

    /// Whether the server ends the connection within `milliseconds`, discarding what it sends
    /// first: true at end of stream or a reset, false when it is still open at the deadline, so an
    /// expectation can see both outcomes. `poll` waits for the close itself; nothing sleeps.
    public func isClosedByPeer(within milliseconds: Int = 5_000) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        buffer.removeAll()
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let waitMillis = max(0, Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, waitMillis)
            if ready < 0 { throw Failure(description: "poll() failed") }
            if ready == 0 { return false }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }
}

// Foundation's two, for this file alone: FCMTesting does not import Foundation.
extension String {
    fileprivate func components(separatedBy separator: String) -> [String] {
        split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }

    fileprivate func trimmingCharacters(in _: CharacterSetWhitespace) -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

private enum CharacterSetWhitespace { case whitespaces }
