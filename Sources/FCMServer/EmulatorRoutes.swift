// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMHTTP
import FCMJSON
import FCMLegacyFormat
import FCMTransport
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
    /// What the control API's event streams share, when the caller wants to see it (tests count
    /// its encodings); nil: the routes make their own.
    public var events: EventFeed?
    /// The requests kept open (event streams, waits, calls a `hold` fault keeps), when the caller
    /// bounds or counts them (tests); nil: the routes make their own.
    public var live: LiveRequests?
    /// Host, Origin and control-token checks for network callers (`EmulatorServer` sets them);
    /// nil for in-process callers (tests, scenarios), which no web page can reach.
    public var access: AccessPolicy?
    /// Who holds connections to the HTTP ports (`GET /emulator/v1/connections`); the server sets
    /// it, and in process there are none.
    package var clients: ClientConnections?

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
        var router = Router(unmounted: GoogleFrontEnd.dialect)
        var snapshots = fronts.snapshots
        if snapshots.root == nil { snapshots.root = fronts.stateDirectory.map { $0 + "/snapshots" } }
        let live = fronts.live ?? LiveRequests()
        let control = ControlAPI(
            emulator: emulator, credentials: credentials, live: live, feed: fronts.events ?? EventFeed(), info: info,
            snapshots: snapshots, clients: fronts.clients)
        control.register(into: &router)
        Dashboard().register(into: &router)
        let metadataRoot = Fronts.register(
            into: &router, emulator: emulator, credentials: credentials, authMode: fronts.authMode, wallSeconds: fronts.wallSeconds,
            metadataProject: fronts.metadataProject)
        // The root is the emulator's own: its words, not Google's, unless the metadata server is asked.
        router.mount(.other, ["/"], dialect: ControlAPI.dialect)
        router.add("GET", "/") { request, _ in metadataRoot(request) ?? ControlAPI.fallback(request, allowed: []) }
        Fronts.registerBatch(into: &router)
        // Transport faults sit between the transport and the fronts (Sources/README.md, docs/faults.md).
        let faults = TransportFaults(emulator: emulator, live: live)
        let recorder = RefusalRecorder(emulator: emulator)
        let routes = router
        let access = fronts.access
        return HTTPResponder(
            router: routes, maxBodyBytes: maxBodyBytes,
            handle: { request in
                var request = request
                let resolution = routes.resolve(request)
                var response: HTTPResponse
                if let refused = admit(&request, resolution, access: access) {
                    response = refused
                } else {
                    response = faults.respond(request, api: resolution.api, dialect: resolution.dialect) {
                        routes.respond(to: $0, resolution)
                    }
                    // The fronts' refusals become events here, whatever refused them.
                    recorder.record(&response, for: request, api: resolution.api)
                }
                response.api = resolution.api.name
                return response
            },
            clockSpeed: { emulator.clockSpeed }, live: live,
            handshakeDelayMillis: { emulator.handshakeDelayMillis() }
        ) { request in
            let resolution = routes.resolve(request)
            var response = resolution.dialect.tooLarge(maxBodyBytes)
            recorder.record(&response, for: request, api: resolution.api)
            response.api = resolution.api.name
            return response
        }
    }

    /// Before faults and routes, the access policy and the control API's content type: a refused
    /// page's call changes nothing and counts nowhere.
    static func admit(_ request: inout HTTPRequest, _ resolution: Router.Resolution, access: AccessPolicy?) -> HTTPResponse? {
        if let refusal = access?.admit(&request, plane: resolution.api.plane) {
            var response = resolution.dialect.refused(refusal)
            if refusal.status == 401 { response.headers.append(("WWW-Authenticate", "Bearer realm=\"fcm-emu control API\"")) }
            return response
        }
        return resolution.api == .control ? ControlContentType.refusal(request) : nil
    }
}
