// SPDX-License-Identifier: Apache-2.0

/// What the transport calls: the routes behind any middleware, plus the answer for a body over
/// the limit (which the routes never see, since the body is not read).
public struct HTTPResponder: Sendable {
    /// The route table (for listing routes; requests go through `respond`).
    public let router: Router
    public let maxBodyBytes: Int
    /// A request that is answered before the router runs (`413`), in the route owner's dialect.
    public let tooLarge: @Sendable (HTTPRequest) -> HTTPResponse
    /// How fast the emulator's clock runs against the wall, to turn injected latency into waiting.
    public let clockSpeed: @Sendable () -> Double
    /// Streams and waits kept open, ended together at shutdown.
    public let live: LiveRequests
    /// How long a new TLS connection's handshake waits (a `slowHandshake` fault), in emulator ms.
    public let handshakeDelayMillis: @Sendable () -> Int64
    private let handle: @Sendable (HTTPRequest) -> HTTPResponse

    /// - Parameter handle: what answers requests; by default the router itself.
    public init(
        router: Router, maxBodyBytes: Int, handle: (@Sendable (HTTPRequest) -> HTTPResponse)? = nil,
        clockSpeed: @escaping @Sendable () -> Double = { 1 }, live: LiveRequests = LiveRequests(),
        handshakeDelayMillis: @escaping @Sendable () -> Int64 = { 0 },
        tooLarge: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        self.handshakeDelayMillis = handshakeDelayMillis
        self.clockSpeed = clockSpeed
        self.live = live
        self.router = router
        self.maxBodyBytes = maxBodyBytes
        self.tooLarge = tooLarge
        self.handle = handle ?? { router.respond(to: $0) }
    }

    public func respond(_ request: HTTPRequest) -> HTTPResponse { handle(request) }
}
