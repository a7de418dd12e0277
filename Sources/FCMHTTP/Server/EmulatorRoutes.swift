// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How the fronts check credentials, and where they keep what must survive a restart.
public struct FrontConfiguration: Sendable {
    public var authMode: AuthMode = .strict
    /// Service-account keys, the access-token signing key and the CA are kept here; nil keeps
    /// them in memory only.
    public var stateDirectory: String?
    /// Wall time in seconds, for token lifetimes and JWT checks (never the emulator clock).
    public var wallSeconds: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    /// The project whose service account the GCE metadata server hands tokens for.
    public var metadataProject = DemoProject.id
    /// Snapshots of the control API; the root defaults to `<state dir>/snapshots`.
    public var snapshots = SnapshotConfiguration()
    /// The fronts' keys, when the caller shares them (`serve` exports them with the world);
    /// nil: the routes make their own from `stateDirectory`.
    public var credentials: FrontCredentials?
    /// Host, Origin and control-token checks for network callers (`EmulatorServer` sets them);
    /// nil for in-process callers (tests, scenarios), which no web page can reach.
    public var access: AccessPolicy?

    public init(authMode: AuthMode = .strict, stateDirectory: String? = nil) {
        self.authMode = authMode
        self.stateDirectory = stateDirectory
    }
}

/// The one route table of the HTTP port. Tests and the scenario runner call `responder` in
/// process; the transport calls the very same value for network clients.
public enum EmulatorRoutes {
    public static func responder(
        emulator: Emulator, maxBodyBytes: Int, fronts: FrontConfiguration = FrontConfiguration(),
        info: @escaping @Sendable () -> JSONValue
    ) -> HTTPResponder {
        let credentials = fronts.credentials ?? FrontCredentials(stateDirectory: fronts.stateDirectory, wallSeconds: fronts.wallSeconds)
        let accounts = credentials.accounts
        let grants = credentials.grants
        let auth = Authenticator(mode: fronts.authMode, emulator: emulator, accounts: accounts, grants: grants)
        var router = Router(fallback: fallback)
        var snapshots = fronts.snapshots
        if snapshots.root == nil { snapshots.root = fronts.stateDirectory.map { $0 + "/snapshots" } }
        let live = LiveRequests()
        ControlAPI(emulator: emulator, credentials: credentials, live: live, info: info, snapshots: snapshots)
            .register(into: &router)
        V1Front(emulator: emulator, auth: auth).register(into: &router)
        V1TopicSubscriptions(emulator: emulator, auth: auth).register(into: &router)
        IIDFront(emulator: emulator, auth: auth).register(into: &router)
        LegacyFront(emulator: emulator, auth: auth).register(into: &router)
        DeviceGroupFront(emulator: emulator, auth: auth).register(into: &router)
        TokenEndpoint(accounts: accounts, grants: grants, wallSeconds: fronts.wallSeconds).register(into: &router)
        AllowedLocations().register(into: &router)
        Dashboard().register(into: &router)
        let metadata = MetadataServer(emulator: emulator, grants: grants, project: fronts.metadataProject)
        metadata.register(into: &router)
        router.add("GET", "/") { request, _ in metadata.root(request) ?? fallback(request, allowed: []) }
        // Batch parts are answered by the routes above, exactly as direct calls.
        let inner = router
        let boundaries = BoundaryFactory()
        BatchFront(respond: { inner.respond(to: $0) }, nextBoundary: boundaries.next).register(into: &router)
        // Transport faults sit between the transport and the fronts (Sources/README.md, docs/faults.md).
        let faults = TransportFaults(emulator: emulator)
        let recorder = RefusalRecorder(emulator: emulator)
        let routes = router
        let access = fronts.access
        return HTTPResponder(
            router: routes, maxBodyBytes: maxBodyBytes,
            handle: { request in
                // Before faults and routes: a refused page's call changes nothing and counts nowhere.
                var request = request
                if let refusal = access?.admit(&request) { return refused(refusal, request) }
                if let refusal = ControlContentType.refusal(request) { return refusal }
                // The fronts' refusals become events here, whatever refused them (issue 21, item 1).
                var response = faults.respond(request) { routes.respond(to: $0) }
                recorder.record(&response, for: request)
                return response
            },
            clockSpeed: { emulator.clockSpeed }, live: live,
            handshakeDelayMillis: { emulator.handshakeDelayMillis() }
        ) { request in
            var response = tooLarge(request, maxBodyBytes: maxBodyBytes)
            recorder.record(&response, for: request)
            return response
        }
    }

    /// A body over the limit, in the dialect of the API it was sent to.
    static func tooLarge(_ request: HTTPRequest, maxBodyBytes: Int) -> HTTPResponse {
        if request.path.hasPrefix("/fcm/") || request.path.hasPrefix("/gcm/") { return LegacyPages.tooLarge() }
        if request.path.hasPrefix("/v1/") {
            return V1Error(
                status: 413, statusName: "INVALID_ARGUMENT", message: "Request payload size exceeds the limit: \(maxBodyBytes) bytes.",
                details: []
            ).response
        }
        return ControlAPI.tooLarge(request, limit: maxBodyBytes)
    }

    /// A request the access policy refused, in the dialect of the API it called.
    static func refused(_ refusal: AccessPolicy.Refusal, _ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if AccessPolicy.plane(of: request.path) == .control || request.path == "/" {
            response = ControlError.response(status: refusal.status, name: refusal.statusName, message: refusal.message)
        } else if request.path.hasPrefix("/v1/") || request.path == "/v1" {
            response = V1Error(status: refusal.status, statusName: refusal.statusName, message: refusal.message, details: []).response
        } else {
            // Legacy, IID, OAuth, metadata and the dashboard: Google's front end words refusals as an HTML page.
            let title = "Error \(refusal.status) (\(HTTPResponse.reasonPhrase(refusal.status)))!!1"
            let html = """
                <!DOCTYPE html>
                <html lang=en>
                  <meta charset=utf-8>
                  <title>\(title)</title>
                  <p><b>\(refusal.status).</b> <ins>That’s an error.</ins>
                  <p>\(escapeHTML(refusal.message))  <ins>That’s all we know.</ins>

                """
            response = HTTPResponse(status: refusal.status, contentType: "text/html; charset=UTF-8", body: html)
        }
        if refusal.status == 401 { response.headers.append(("WWW-Authenticate", "Bearer realm=\"fcm-emu control API\"")) }
        return response
    }

    /// Unknown paths: the control API's dialect under its prefix, Google's 404 page elsewhere.
    @Sendable static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        if request.path.hasPrefix(ControlAPI.prefix) || request.path == "/" {
            return ControlAPI.fallback(request, allowed: allowed)
        }
        if request.path.hasPrefix("/v1/") { return V1Front.fallback(request, allowed: allowed) }
        if request.path.hasPrefix("/fcm/") || request.path.hasPrefix("/gcm/") { return LegacyFront.fallback(request, allowed: allowed) }
        return notFoundPage(request)
    }

    /// Google's front end answers unknown URLs with an HTML 404 page.
    static func notFoundPage(_ request: HTTPRequest) -> HTTPResponse {
        let html = """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <title>Error 404 (Not Found)!!1</title>
              <p><b>404.</b> <ins>That’s an error.</ins>
              <p>The requested URL <code>\(escapeHTML(request.path))</code> was not found on this server.  <ins>That’s all we know.</ins>

            """
        return HTTPResponse(status: 404, contentType: "text/html; charset=UTF-8", body: html)
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
