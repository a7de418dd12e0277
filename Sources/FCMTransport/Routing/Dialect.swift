// SPDX-License-Identifier: Apache-2.0

/// How an API words the errors that come from outside its handlers, each in the shape its clients
/// parse: a path or method it does not serve, a body over the limit, a request the access policy
/// refused, and a status a fault injects. Each front defines its own beside its routes and mounts
/// its paths with it (`Router.mount`).
public struct Dialect: Sendable {
    /// No route for the path (`allowed` empty: 404), or not for the method (405, `allowed` names those that are).
    public var notFound: @Sendable (_ request: HTTPRequest, _ allowed: [String]) -> HTTPResponse
    /// A body over `limit` bytes, answered before it is read.
    public var tooLarge: @Sendable (_ limit: Int) -> HTTPResponse
    /// A request the access policy refused (Host, Origin, control token).
    public var refused: @Sendable (AccessPolicy.Refusal) -> HTTPResponse
    /// The answer to a fault rule's `status` action; nil for an API fault rules do not reach.
    public var injected: (@Sendable (_ status: Int) -> HTTPResponse)?

    public init(
        notFound: @escaping @Sendable (HTTPRequest, [String]) -> HTTPResponse, tooLarge: @escaping @Sendable (Int) -> HTTPResponse,
        refused: @escaping @Sendable (AccessPolicy.Refusal) -> HTTPResponse, injected: (@Sendable (Int) -> HTTPResponse)? = nil
    ) {
        self.notFound = notFound
        self.tooLarge = tooLarge
        self.refused = refused
        self.injected = injected
    }

    /// This dialect with an API's own answer to injected statuses (and to refusals, when given).
    public func injecting(
        _ injected: @escaping @Sendable (Int) -> HTTPResponse, refused: (@Sendable (AccessPolicy.Refusal) -> HTTPResponse)? = nil
    ) -> Dialect {
        var dialect = self
        dialect.injected = injected
        if let refused { dialect.refused = refused }
        return dialect
    }
}
