// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// Captured path parameters, percent-decoded. A route's handler reads only the names its own
/// pattern captures, so a nil here is a mistake in the route table, never in the request.
public struct PathParameters: Sendable {
    private var values: [String: String] = [:]

    public subscript(_ name: String) -> String? { values[name] }

    /// The value of `name`, or the internal error that a route reading a name it does not
    /// capture deserves (the request itself is fine).
    public func require(_ name: String) throws(FCMError) -> String {
        guard let value = values[name] else { throw FCMError(.internalError, "The route captures no '\(name)'") }
        return value
    }

    mutating func set(_ name: String, _ value: String) { values[name] = value }
}

/// A request handler: pure, synchronous, and free of transport types.
public typealias RouteHandler = @Sendable (HTTPRequest, PathParameters) -> HTTPResponse

/// Maps (method, path) to handlers. Patterns are `/`-separated segments where `{name}` captures a
/// segment and `{name}:verb` captures a segment ending in Google's custom-method suffix
/// (`devices/{device}:uninstall`, as in `messages:send`).
public struct Router: Sendable {
    private struct Route: Sendable {
        let method: String
        let segments: [String]
        let handler: RouteHandler
        /// Literal text the pattern demands: literal segments and the suffixes after captures.
        let specificity: Int

        init(method: String, segments: [String], handler: @escaping RouteHandler) {
            self.method = method
            self.segments = segments
            self.handler = handler
            specificity = segments.reduce(0) { total, segment in
                guard segment.hasPrefix("{"), let close = segment.firstIndex(of: "}") else { return total + 1 + segment.utf8.count }
                return total + segment[segment.index(after: close)...].utf8.count
            }
        }
    }

    private var routes: [Route] = []
    /// Answers requests that match no route, in the dialect of whoever owns the path.
    public var fallback: @Sendable (HTTPRequest, _ allowed: [String]) -> HTTPResponse

    public init(fallback: @escaping @Sendable (HTTPRequest, _ allowed: [String]) -> HTTPResponse) {
        self.fallback = fallback
    }

    /// Every (method, pattern) served, in registration order.
    public var patterns: [(method: String, pattern: String)] {
        routes.map { ($0.method, "/" + $0.segments.joined(separator: "/")) }
    }

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping RouteHandler) {
        // Kept most specific first (stable among equals), so that `respond` stops at the first
        // route that fits the path and method.
        let route = Route(method: method, segments: Self.split(pattern), handler: handler)
        let index = routes.firstIndex { $0.specificity < route.specificity } ?? routes.endIndex
        routes.insert(route, at: index)
    }

    /// Routes one request; a path that exists under other methods gets the fallback with the
    /// methods that would have matched (for `405` and `Allow`).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var segments = Self.split(request.path)
        // A trailing slash (an empty last segment) is read as none only by safe methods (RFC 9110
        // §9.2.1), so `/ui/` is `/ui`; `DELETE …/faults/`, which a browser makes of the rule id
        // `.` (WHATWG URL standard, "single-dot segment"), is not the collection's DELETE.
        if segments.count > 1, segments.last == "", request.method == "GET" || request.method == "HEAD" {
            segments.removeLast()
        }
        // The most specific patterns win: `devices/{device}:uninstall` over `devices/{device}`,
        // which would also capture `0:uninstall` (device references may hold colons), so that a
        // 405's `Allow` lists only what the path really serves.
        var allowed: [String] = []
        var specificity: Int?
        for route in routes {
            if let specificity, route.specificity < specificity { break }  // only less specific routes remain
            guard let parameters = Self.match(route.segments, segments) else { continue }
            specificity = route.specificity
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                var response = route.handler(request, parameters)
                if request.method == "HEAD" {
                    // The length the GET would have (RFC 9110 §9.3.2), with no body.
                    response.headers.removeAll { $0.0.lowercased() == "content-length" }
                    response.headers.append(("Content-Length", String(response.body.count)))
                    response.body = []
                }
                return response
            }
            allowed.append(route.method)
        }
        return fallback(request, allowed)
    }

    /// Splits on '/' byte-wise: paths are ASCII on the wire, and grapheme-aware splitting was a
    /// tenth of a request's cost. Empty segments are kept (only the leading '/' is dropped), so
    /// `//`, a trailing '/' and an empty id never fold into a shorter path that means something
    /// else (issue 23, item 5).
    static func split(_ path: String) -> [String] {
        var bytes = Substring(path).utf8[...]
        if bytes.first == UInt8(ascii: "/") { bytes = bytes.dropFirst() }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    private static func match(_ pattern: [String], _ segments: [String]) -> PathParameters? {
        guard pattern.count == segments.count else { return nil }
        var parameters = PathParameters()
        for (p, s) in zip(pattern, segments) {
            guard p.hasPrefix("{") else {
                guard p == s || (s.utf8.contains(UInt8(ascii: "%")) && HTTPRequest.percentDecode(s) == p) else { return nil }
                continue
            }
            guard let close = p.firstIndex(of: "}") else { return nil }
            let name = String(p[p.index(after: p.startIndex)..<close])
            let suffix = String(p[p.index(after: close)...])
            guard let decoded = s.utf8.contains(UInt8(ascii: "%")) ? HTTPRequest.percentDecode(s) : s, decoded.hasSuffix(suffix),
                decoded.count > suffix.count
            else {
                return nil
            }
            parameters.set(name, String(decoded.dropLast(suffix.count)))
        }
        return parameters
    }
}
