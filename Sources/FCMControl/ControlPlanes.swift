// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// The emulator's own APIs and the access policy's planes they pass (docs/security.md): the
/// control API answers only under the emulator's own names and, beyond loopback, needs the
/// control token, but for its health check; the dashboard's pages may be opened from a link.
extension API {
    /// `/emulator/*`: the control API.
    public static let control = API("control", plane: .control)
    /// `/ui/*`: the dashboard's files.
    public static let dashboard = API("dashboard", plane: .dashboard)
}

extension AccessPolicy.Plane {
    public static let control = AccessPolicy.Plane(needsToken: true, openPaths: [ControlAPI.healthPath])
    public static let dashboard = AccessPolicy.Plane(navigable: true)
}
