// SPDX-License-Identifier: Apache-2.0

/// What the transport calls: the router, plus the answer for a body over the limit (which the
/// router never sees, since the body is not read).
public struct HTTPResponder: Sendable {
    public let router: Router
    public let maxBodyBytes: Int
    /// A request that is answered before the router runs (`413`), in the route owner's dialect.
    public let tooLarge: @Sendable (HTTPRequest) -> HTTPResponse

    public init(router: Router, maxBodyBytes: Int, tooLarge: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.router = router
        self.maxBodyBytes = maxBodyBytes
        self.tooLarge = tooLarge
    }

    public func respond(_ request: HTTPRequest) -> HTTPResponse { router.respond(to: request) }
}
