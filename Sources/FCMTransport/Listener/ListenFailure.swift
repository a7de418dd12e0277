// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import NIOCore

/// A listener that could not bind: which one, on which address, and why in words. NIO's own
/// error names the system call ("bind(descriptor:ptr:bytes:): Address already in use") and not
/// the port, which is what a user needs to change.
public struct ListenFailure: Error, CustomStringConvertible, Sendable {
    /// HTTP, TLS, XMPP or proxy.
    public let listener: String
    public let host: String
    public let port: Int
    public let reason: String
    /// The port is taken (EADDRINUSE), most often by another emulator.
    public let addressInUse: Bool

    public init(listener: String, host: String, port: Int, error: any Error) {
        self.listener = listener
        self.host = host
        self.port = port
        let errno = (error as? IOError)?.errnoCode
        addressInUse = errno == EADDRINUSE
        switch errno {
        case EADDRINUSE?: reason = "the port is in use"
        case EACCES?: reason = "permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL?: reason = "the address is not one of this machine's"
        case let code?: reason = String(cString: strerror(code))
        case nil: reason = "\(error)"
        }
    }

    public var description: String { "cannot listen on \(host.contains(":") ? "[\(host)]" : host):\(port) (\(listener)): \(reason)" }

    /// Runs `start`, turning a failure into a `ListenFailure` for this listener.
    public static func naming<T>(_ listener: String, host: String, port: Int, _ start: () async throws -> T) async throws -> T {
        do {
            return try await start()
        } catch let error as ListenFailure {
            throw error
        } catch {
            throw ListenFailure(listener: listener, host: host, port: port, error: error)
        }
    }
}
