// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport

/// Every FCM front on a route table, as the server mounts them beside the control API
/// (`EmulatorRoutes` in FCMServer): the one door from the server into this target.
package enum Fronts {
    /// Mounts every front but batch, which goes last (`registerBatch`). Returns the metadata
    /// server's answer for `/`, given only when a caller asks it as Google's metadata server.
    package static func register(
        into router: inout Router, emulator: Emulator, credentials: FrontCredentials, authMode: AuthMode,
        wallSeconds: @escaping @Sendable () -> Int64, metadataProject: String
    ) -> @Sendable (HTTPRequest) -> HTTPResponse? {
        let auth = Authenticator(mode: authMode, emulator: emulator, accounts: credentials.accounts, grants: credentials.grants)
        V1Front(emulator: emulator, auth: auth).register(into: &router)
        V1TopicSubscriptions(emulator: emulator, auth: auth).register(into: &router)
        IIDFront(emulator: emulator, auth: auth).register(into: &router)
        LegacyFront(emulator: emulator, auth: auth).register(into: &router)
        DeviceGroupFront(emulator: emulator, auth: auth).register(into: &router)
        WebPushFront(emulator: emulator, wallSeconds: wallSeconds).register(into: &router)
        // The client side, for real receivers (docs/receivers.md).
        CheckinFront(emulator: emulator).register(into: &router)
        InstallationsFront(emulator: emulator).register(into: &router)
        RegistrationsFront(emulator: emulator).register(into: &router)
        TokenEndpoint(emulator: emulator, accounts: credentials.accounts, grants: credentials.grants, wallSeconds: wallSeconds).register(into: &router)
        AllowedLocations().register(into: &router)
        let metadata = MetadataServer(emulator: emulator, grants: credentials.grants, project: metadataProject)
        metadata.register(into: &router)
        return metadata.root
    }

    /// Batch, after every other route: its parts are answered by the routes registered before
    /// it, exactly as direct calls.
    package static func registerBatch(into router: inout Router) {
        let inner = router
        let boundaries = BoundaryFactory()
        BatchFront(respond: { inner.respond(to: $0) }, nextBoundary: boundaries.next).register(into: &router)
    }
}
