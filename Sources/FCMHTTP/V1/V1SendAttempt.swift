// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// A v1 send as the retry ledger knows it, for an attempt refused before the front read it
/// (a transport fault): `Emulator.noteRefusedSend` counts it, so the accepted retry that follows
/// says how many attempts and gaps came before (docs/simulation.md, "Retries made visible").
package enum V1SendAttempt {
    /// A `messages:send` request's fingerprint, as `V1Front` makes it, and its target read
    /// leniently; nil for any other request or a body that names no target.
    package static func of(_ request: HTTPRequest) -> (fingerprint: UInt64, target: String)? {
        guard request.method == "POST", request.path.hasSuffix("/messages:send"), let project = AccessLog.project(request.path),
            let body = try? JSONParser.parse(request.body), let target = V1Front.namedTarget(body)
        else { return nil }
        return (SendFingerprint.of(project: String(project), body: request.body), target)
    }
}
