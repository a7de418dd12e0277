// SPDX-License-Identifier: Apache-2.0

import Logging
import Synchronization

/// Who may call the emulator over the network: the checks every request passes before any
/// route sees it (docs/security.md). The routes themselves stay pure; the transports' responder
/// carries this policy, and in-process callers (tests, scenarios) have none.
///
/// - `Host` must name this machine (HostRules): a DNS-rebinding page sends its own name. Over
///   HTTP/2 that is `:authority`, and a `Host` that names another target is refused.
/// - `Origin`, when sent, must be the emulator's own: browsers send it on every cross-origin
///   request and every non-GET one (Fetch standard, "origin header"), including the "simple"
///   requests that skip the CORS preflight, so it is what tells a page's call from an SDK's.
/// - `Sec-Fetch-Site` `cross-site`/`same-site` (Fetch Metadata, W3C) is refused too: a page's
///   no-cors GET (an `<img>`, `fetch(…, {mode: "no-cors"})`) sends no `Origin`.
/// - Beyond loopback, the control API needs `Authorization: Bearer <controlToken>`.
public struct AccessPolicy: Sendable {
    /// What the checks ask of the part of the emulator a path belongs to, as the API that owns
    /// the path declares it (`API.plane`): what its Host may be, whether a browser may open it,
    /// and whether it needs the control token.
    public struct Plane: Sendable, Hashable {
        /// Beyond loopback, a call needs `Authorization: Bearer <controlToken>`, but a GET or
        /// HEAD of `openPaths` (a container's health check carries no token).
        public var needsToken: Bool
        public var openPaths: Set<String>
        /// Answered under the names of the hosts the emulator stands in for (`HostRules`), not
        /// only under its own.
        public var answersStandInNames: Bool
        /// A browser may open its pages from a link on another site (a top-level navigation
        /// sends `Sec-Fetch-Site: cross-site`).
        public var navigable: Bool

        public init(needsToken: Bool = false, openPaths: Set<String> = [], answersStandInNames: Bool = false, navigable: Bool = false) {
            self.needsToken = needsToken
            self.openPaths = openPaths
            self.answersStandInNames = answersStandInNames
            self.navigable = navigable
        }

        /// What the emulator stands in for, Google's services: under their names too, no token.
        public static let standIn = Plane(answersStandInNames: true)
    }

    /// A request refused, for the calling API to word in its own dialect.
    public struct Refusal: Sendable, Equatable {
        public var status: Int
        public var statusName: String
        public var message: String
    }

    let hosts: HostRules
    /// Required on the control API when set (compared in constant time).
    public let controlToken: String?
    private let warnings: OnceWarnings

    /// - Parameter standInNames: the hosts the emulator stands in for, under whose names the
    ///   `standIn` plane answers too.
    public init(
        listenHost: String, allowedHosts: [String] = [], standInNames: Set<String> = [], controlToken: String? = nil, logger: Logger? = nil
    ) {
        hosts = HostRules(listenHost: listenHost, allowedHosts: allowedHosts, standInNames: standInNames)
        self.controlToken = controlToken.flatMap { $0.isEmpty ? nil : $0 }
        warnings = OnceWarnings(logger: logger)
    }

    /// nil when the request may go on; it may be changed (the stream's `access_token` removed).
    /// `plane`: the part the request's path lies in (`API.plane`, from the router's mounts).
    public func admit(_ request: inout HTTPRequest, plane: Plane) -> Refusal? {
        let hostValues = request.headers.filter { $0.0.equalsIgnoringASCIICase("host") }
        // One Host at most (RFC 9112 §3.2); none comes from HTTP/1.0 clients, never from browsers.
        guard hostValues.count <= 1 else { return refuse(.host, 400, "INVALID_ARGUMENT", "A request carries one Host header") }
        // Over HTTP/2 `:authority` names the target, and a Host beside it that names another
        // makes the request malformed (RFC 9113 §8.3.1): judged by either one alone, it could
        // pass the rule under one name and be served under the other.
        if let authority = request.authority, let host = hostValues.first?.1, !HostRules.nameSameTarget(authority, host) {
            return refuse(
                .host, 400, "INVALID_ARGUMENT",
                "The request's :authority '\(String(authority.prefix(80)))' and Host '\(String(host.prefix(80)))' name different "
                    + "targets (RFC 9113 §8.3.1): send one, or the same in both")
        }
        let host = request.authority ?? hostValues.first?.1
        if let host {
            guard let (name, port) = HostRules.split(host), plane.answersStandInNames
                ? hosts.allowsStandIn(host: name, port: port) : hosts.allowsControl(host: name, port: port)
            else {
                let shown = String(host.prefix(80))
                return refuse(
                    .host, 403, "PERMISSION_DENIED",
                    "Host '\(shown)' is not a name of this emulator (loopback names, --host and the allowedHosts setting are): "
                        + "a page of another site can reach it under its own name (DNS rebinding). If you call it so on purpose, "
                        + "start it with --set allowedHosts=\(HostRules.split(host)?.host ?? "<name>")")
            }
        }
        if let origin = request.header("Origin"), !hosts.isOwnOrigin(origin, host: host) {
            return refuse(
                .origin, 403, "PERMISSION_DENIED",
                "A page from origin '\(String(origin.prefix(80)))' may not call the emulator: only its own pages (the dashboard) "
                    + "may. Call it from your test code or a server, not from another site's page")
        }
        if let site = request.header("Sec-Fetch-Site")?.lowercased(), site == "cross-site" || site == "same-site",
            !(plane.navigable && request.header("Sec-Fetch-Mode")?.lowercased() == "navigate")
        {
            return refuse(
                .origin, 403, "PERMISSION_DENIED",
                "A \(site) request from a browser page may not call the emulator; open the dashboard from its own address")
        }
        if plane.needsToken, let token = controlToken, !Self.isOpen(request, plane) {
            guard presentedToken(&request).map({ Self.equalInConstantTime($0, token) }) == true else {
                return refuse(
                    .token, 401, "UNAUTHENTICATED",
                    "The control API needs 'Authorization: Bearer <token>' here (the emulator listens beyond loopback): "
                        + "the token is printed at start (serve's banner, controlToken in the ready file), and "
                        + "FCM_EMU_CONTROL_TOKEN gives it to the CLI")
            }
        }
        return nil
    }

    private static func isOpen(_ request: HTTPRequest, _ plane: Plane) -> Bool {
        (request.method == "GET" || request.method == "HEAD") && plane.openPaths.contains(request.path)
    }

    /// The bearer, or on an event stream `?access_token=` (an `EventSource` cannot send headers;
    /// RFC 6750 §2.3), which is taken out of the query so the route never sees it.
    private func presentedToken(_ request: inout HTTPRequest) -> String? {
        if let authorization = request.header("Authorization"), authorization.utf8.count <= 1024 {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].equalsIgnoringASCIICase("bearer") { return String(parts[1]).trimmingSpaces }
        }
        let isStream = request.method == "GET" && request.path.hasSuffix(":stream")
        guard isStream, let token = request.queryValue("access_token") else { return nil }
        request.query.removeAll { $0.0 == "access_token" }
        return token
    }

    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    enum Kind: String {
        case host, origin, token
    }

    private func refuse(_ kind: Kind, _ status: Int, _ name: String, _ message: String) -> Refusal {
        warnings.warn(kind.rawValue, message)
        return Refusal(status: status, statusName: name, message: message)
    }
}

/// Each kind of refusal is logged once per run, at warning level, with its fix: a flood of
/// refused calls must not become a flood of log lines.
final class OnceWarnings: Sendable {
    private let logger: Logger?
    private let seen = Mutex<Set<String>>([])

    init(logger: Logger?) { self.logger = logger }

    func warn(_ kind: String, _ message: String) {
        guard let logger, seen.withLock({ $0.insert(kind).inserted }) else { return }
        logger.warning("Refused a request: \(message) (logged once per kind; see docs/security.md)")
    }
}
