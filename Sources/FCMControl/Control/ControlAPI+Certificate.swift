// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ControlAPI {
    /// `GET /emulator/v1/ca.pem`: the local CA's certificate (public), for clients that reach an
    /// emulator whose files they cannot read: a container, a compose service, another machine.
    /// `info.caCertificate` names the same file on the emulator's own file system.
    func registerCertificate(into router: inout Router) {
        router.add(
            "GET", "\(Self.prefix)/ca.pem",
            handle { _, _ throws(FCMError) in
                guard let path = info()["caCertificate"]?.stringValue, let pem = FileManager.default.contents(atPath: path) else {
                    throw FCMError(.notFound, "This emulator serves no TLS port, so it has no CA certificate")
                }
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-pem-file")], body: Array(pem))
            })
    }
}
