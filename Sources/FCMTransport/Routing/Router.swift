// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// Captured path parameters, percent-decoded. A route's handler reads only the names its own
/// pattern captures, so a nil here is a mistake in the route table, never in the request.
public struct PathParameters: Sendable {
    /// A pattern captures at most a few names: a list is cheaper to build and search than a
    /// dictionary, and one is built for every request.
    private var values: [(name: String, value: String)] = []

    public subscript(_ name: String) -> String? { values.first { $0.name == name }?.value }

    /// The value of `name`, or the internal error that a route reading a name it does not
    /// capture deserves (the request itself is fine).
    public func require(_ name: String) throws(FCMError) -> String {
        guard let value = self[name] else { throw FCMError(.internalError, "The route captures no '\(name)'") }
        return value
    }

    mutating func set(_ name: String, _ value: String) {
        if let i = values.firstIndex(where: { $0.name == name }) { values[i].value = value } else { values.append((name, value)) }
    }
}

/// A request handler: pure, synchronous, and free of transport types. It may throw a `RouteError`,
/// its own answer.
public typealias RouteHandler = @Sendable (HTTPRequest, PathParameters) throws -> HTTPResponse

/// Maps (method, path) to handlers, and paths to the API that owns them. Patterns are
/// `/`-separated segments where `{name}` captures a segment and `{name}:verb` captures a segment
/// ending in Google's custom-method suffix (`devices/{device}:uninstall`, as in `messages:send`).
///
/// Each front mounts the paths it owns (`mount`) with its `API` and `Dialect` before adding its
/// routes: that declaration is the only table of paths; the access policy, transport faults,
/// refusal events, the access log, a body over the limit and an unknown path all read it through
/// `resolve`.
public struct Router: Sendable {
    /// A class: `resolve` walks many routes per request, and a struct's copy retained each field.
    fileprivate final class Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: RouteHandler
        /// The API the route is logged and faulted as, when it is not its mount's.
        let api: API?
        /// Literal text the pattern demands: literal segments and the suffixes after captures.
        let specificity: Int

        init(method: String, pattern: [String], api: API?, handler: @escaping RouteHandler) {
            self.method = method
            segments = pattern.map(Segment.init)
            self.api = api
            self.handler = handler
            specificity = segments.reduce(0) { total, segment in
                switch segment {
                case .literal(let text): total + 1 + text.utf8.count
                case .capture(_, let suffix): total + suffix.utf8.count
                }
            }
        }
    }

    /// A pattern segment, read once when the route is added: what `match` compares per request.
    fileprivate enum Segment: Sendable {
        case literal(String)
        /// `{name}` or `{name}:verb`: the name, and the literal text the segment must end with.
        case capture(name: String, suffix: String)

        init(_ text: String) {
            let bytes = text.utf8
            guard bytes.first == UInt8(ascii: "{"), let close = bytes.firstIndex(of: UInt8(ascii: "}")) else {
                self = .literal(text)
                return
            }
            let name = bytes[bytes.index(after: bytes.startIndex)..<close]
            self = .capture(name: String(Substring(name)), suffix: String(Substring(bytes[bytes.index(after: close)...])))
        }

        var text: String {
            switch self {
            case .literal(let text): text
            case .capture(let name, let suffix): "{\(name)}\(suffix)"
            }
        }
    }

    /// Paths an API owns: `/v1` itself, or `/v1/*`, everything beneath it. A class: each request
    /// looks its mount up, and a struct's copy retained and released every field.
    private final class Mount: Sendable {
        let api: API
        let segments: [String]
        let beneath: Bool
        let dialect: Dialect

        init(api: API, segments: [String], beneath: Bool, dialect: Dialect) {
            self.api = api
            self.segments = segments
            self.beneath = beneath
            self.dialect = dialect
        }
    }

    /// A request's place in the table: the API that owns its path and the route that answers it
    /// (nil: none does, and `allowed` lists the methods the path has, for a 405's `Allow`).
    public struct Resolution: Sendable {
        public let api: API
        public let dialect: Dialect
        fileprivate let route: Route?
        fileprivate let parameters: PathParameters
        public let allowed: [String]
    }

    private var routes: [Route] = []
    /// `routes` by their number of segments, then by their first segment, each most specific
    /// first: a path is only compared with the routes of its own length and first segment, a few
    /// where all of one length were dozens (docs/benchmarks.md).
    private var byLength: [[Group]] = []
    /// Most segments first, so the longest mount that fits wins (`/fcm/notification` over `/fcm/*`).
    private var mounts: [Mount] = []
    /// Who answers for a path no front mounted.
    private let unmounted: Dialect

    public init(unmounted: Dialect) {
        self.unmounted = unmounted
    }

    /// Every (method, pattern) served, in registration order.
    public var patterns: [(method: String, pattern: String)] {
        routes.map { ($0.method, "/" + $0.segments.map(\.text).joined(separator: "/")) }
    }

    /// Declares that `api` owns `paths` (`/x` the path itself, `/x/*` every path beneath it) and
    /// words its errors in `dialect`.
    public mutating func mount(_ api: API, _ paths: [String], dialect: Dialect) {
        for path in paths {
            let beneath = path.hasSuffix("/*")
            let mount = Mount(api: api, segments: Self.split(beneath ? String(path.dropLast(2)) : path), beneath: beneath, dialect: dialect)
            let index = mounts.firstIndex { $0.segments.count < mount.segments.count }
            mounts.insert(mount, at: index ?? mounts.endIndex)
        }
    }

    /// `api`: the API the route is logged and faulted as, when not its mount's (the v1 topic
    /// subscriptions beneath `/v1/*`).
    public mutating func add(_ method: String, _ pattern: String, api: API? = nil, _ handler: @escaping RouteHandler) {
        // Kept most specific first (stable among equals), so that `resolve` stops at the first
        // route that fits the path and method.
        let route = Route(method: method, pattern: Self.split(pattern), api: api, handler: handler)
        let index = routes.firstIndex { $0.specificity < route.specificity } ?? routes.endIndex
        routes.insert(route, at: index)
        while byLength.count <= route.segments.count { byLength.append([]) }
        byLength[route.segments.count] = Group.grouped(routes.filter { $0.segments.count == route.segments.count })
    }

    /// The routes of one length whose first segment is the literal `head`; nil: a route of that
    /// length captures its first segment, so every route of it is in this one group.
    private struct Group: Sendable {
        let head: String?
        let routes: [Route]

        static func grouped(_ routes: [Route]) -> [Group] {
            var heads: [String] = []
            for route in routes {
                guard case .literal(let head)? = route.segments.first else { return [Group(head: nil, routes: routes)] }
                if !heads.contains(head) { heads.append(head) }
            }
            // Filtering keeps each group in the order of `routes`: most specific first.
            return heads.map { head in
                Group(head: head, routes: routes.filter { if case .literal(head)? = $0.segments.first { true } else { false } })
            }
        }
    }

    /// A request's path cut at its '/'s, and which segments hold a '%': each is looked at once,
    /// where every route compared looked again.
    private struct Segments {
        var texts: [String]
        /// Bit i: segment i holds a '%'. Past 64 segments every one is taken to hold one, which
        /// only costs those a decoding.
        var escaped: UInt64

        init(_ path: String) {
            var path = path
            var escaped: UInt64 = 0
            texts = path.withUTF8 { Router.split(bytes: $0, escaped: &escaped) }
            self.escaped = escaped
        }

        func hasPercent(_ i: Int) -> Bool { i >= 64 || escaped & (1 << UInt64(i)) != 0 }

        /// Segment `i` percent-decoded; empty when its escapes are malformed.
        func decoded(_ i: Int) -> Substring {
            hasPercent(i) ? Substring(HTTPRequest.percentDecode(texts[i]) ?? "") : Substring(texts[i])
        }
    }

    /// Finds the API and route of a request, once; `respond(to:_:)` then answers it.
    public func resolve(_ request: HTTPRequest) -> Resolution {
        resolve(method: request.method, path: request.path)
    }

    public func resolve(method: String, path: String) -> Resolution {
        var segments = Segments(path)
        // The first segment as a route or a mount reads it: percent-decoded.
        let head = segments.texts.isEmpty ? "" : segments.decoded(0)
        let mount = self.mount(of: segments, head: head)
        // A trailing slash (an empty last segment) is read as none only by safe methods (RFC 9110
        // §9.2.1), so `/ui/` is `/ui`; `DELETE …/faults/`, which a browser makes of the rule id
        // `.` (WHATWG URL standard, "single-dot segment"), is not the collection's DELETE.
        if segments.texts.count > 1, segments.texts.last == "", method == "GET" || method == "HEAD" {
            segments.texts.removeLast()
        }
        // The most specific patterns win: `devices/{device}:uninstall` over `devices/{device}`,
        // which would also capture `0:uninstall` (device references may hold colons), so that a
        // 405's `Allow` lists only what the path really serves.
        var allowed: [String] = []
        var specificity: Int?
        let groups = segments.texts.count < byLength.count ? byLength[segments.texts.count] : []
        let group = groups.first { group in
            guard let literal = group.head else { return true }
            return literal.utf8.count == head.utf8.count && literal == head
        }
        for route in group?.routes ?? [] {
            if let specificity, route.specificity < specificity { break }  // only less specific routes remain
            guard let parameters = Self.match(route.segments, segments) else { continue }
            specificity = route.specificity
            if route.method == method || (route.method == "GET" && method == "HEAD") {
                return Resolution(
                    api: route.api ?? mount?.api ?? .other, dialect: mount?.dialect ?? unmounted, route: route,
                    parameters: parameters, allowed: [])
            }
            allowed.append(route.method)
        }
        return Resolution(
            api: mount?.api ?? .other, dialect: mount?.dialect ?? unmounted, route: nil, parameters: PathParameters(),
            allowed: allowed)
    }

    /// Routes one request.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        respond(to: request, resolve(request))
    }

    /// Answers a resolved request: its route, or its API's 404/405 (with the methods the path has).
    public func respond(to request: HTTPRequest, _ resolution: Resolution) -> HTTPResponse {
        guard let route = resolution.route else { return resolution.dialect.notFound(request, resolution.allowed) }
        var response: HTTPResponse
        do {
            response = try route.handler(request, resolution.parameters)
        } catch let error as any RouteError {
            response = error.response
        } catch {
            response = resolution.dialect.injected?(500) ?? HTTPResponse(status: 500)
        }
        if request.method == "HEAD" {
            // The length the GET would have (RFC 9110 §9.3.2), with no body.
            response.headers.removeAll { $0.0.equalsIgnoringASCIICase("content-length") }
            response.headers.append(("Content-Length", String(response.body.count)))
            response.body = []
        }
        return response
    }

    /// The mount a path lies in. Segments are read as routes read them, percent-decoded, and the
    /// first up to a ':' (decoded or not), so `/%65mulator/v1/info` and `/emulator%3Av1` are the
    /// control API's as `/emulator/v1/info` is: its stricter checks cannot be stepped around.
    private func mount(of segments: Segments, head: Substring) -> Mount? {
        guard !segments.texts.isEmpty else { return nil }
        // The first segment is read once (every mount compares it); the rest only by the few
        // mounts of two segments.
        let first = head.utf8.firstIndex(of: UInt8(ascii: ":")).map { String(head[..<$0]) } ?? String(head)
        let count = segments.texts.count
        return mounts.first { mount in
            guard mount.beneath ? count > mount.segments.count : count == mount.segments.count,
                let head = mount.segments.first, head.equalsLengthFirst(first)
            else { return false }
            return mount.segments.indices.dropFirst().allSatisfy { segments.decoded($0) == mount.segments[$0] }
        }
    }

    /// Splits on '/' byte-wise: paths are ASCII on the wire, and grapheme-aware splitting was a
    /// tenth of a request's cost. Empty segments are kept (only the leading '/' is dropped), so
    /// `//`, a trailing '/' and an empty id never fold into a shorter path that means something
    /// else.
    package static func split(_ path: String) -> [String] {
        // From the contiguous bytes a segment is one copy (most are small strings, held inline).
        var path = path
        return path.withUTF8 { split(bytes: $0) }
    }

    private static func split(bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var escaped: UInt64 = 0
        return split(bytes: bytes, escaped: &escaped)
    }

    /// `escaped` gains bit i for each segment i below 64 that holds a '%'.
    fileprivate static func split(bytes: UnsafeBufferPointer<UInt8>, escaped: inout UInt64) -> [String] {
        var segments: [String] = []
        segments.reserveCapacity(8)
        var start = bytes.first == UInt8(ascii: "/") ? 1 : 0
        var percent = false
        for i in start..<bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "/"):
                if percent, segments.count < 64 { escaped |= 1 << UInt64(segments.count) }
                segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
                start = i + 1
                percent = false
            case UInt8(ascii: "%"): percent = true
            default: break
            }
        }
        if percent, segments.count < 64 { escaped |= 1 << UInt64(segments.count) }
        segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
        return segments
    }

    private static func match(_ pattern: [Segment], _ segments: Segments) -> PathParameters? {
        let texts = segments.texts
        guard pattern.count == texts.count else { return nil }
        // Literals first, without building anything: most routes a path is compared with differ
        // from it in a literal, and captures are only worth decoding for the one that fits.
        for i in pattern.indices {
            guard case .literal(let text) = pattern[i] else { continue }
            guard text.equalsLengthFirst(texts[i]) || (segments.hasPercent(i) && HTTPRequest.percentDecode(texts[i]) == text)
            else { return nil }
        }
        var parameters = PathParameters()
        for i in pattern.indices {
            guard case .capture(let name, let suffix) = pattern[i] else { continue }
            // Byte-wise: a verb is ASCII, and Character counting was a tenth of a send's routing.
            guard let decoded = segments.hasPercent(i) ? HTTPRequest.percentDecode(texts[i]) : texts[i],
                decoded.utf8.count > suffix.utf8.count, decoded.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
            else { return nil }
            parameters.set(name, suffix.isEmpty ? decoded : String(Substring(decoded.utf8.dropLast(suffix.utf8.count))))
        }
        return parameters
    }
}
