// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import FCMTransport

/// IAM's `allowedLocations` lookup, which google-auth (2.4x) makes in the background after each
/// token refresh (its "regional access boundary"). Answered with the no-op boundary, `0x0`, so
/// that setups routing Google's host names to the emulator see no failed lookups.
struct AllowedLocations: Sendable {
    func register(into router: inout Router) {
        router.add("GET", "/v1/projects/{project}/serviceAccounts/{account}/allowedLocations") { _, _ in
            V1Response.json(.object([("encodedLocations", .string("0x0")), ("locations", .array([]))]))
        }
    }
}
