// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP

/// What `serve` prints on standard output once it listens: enough to start using it.
enum Banner {
    static func text(server: EmulatorServer, xmppPorts: [Int] = []) -> String {
        let url = server.baseURL
        let demo = try? server.emulator.project(DemoProject.id)
        let https = server.https.map { "  and https://\(server.http.host):\($0.port) (HTTP/2)" } ?? ""
        let xmpp = xmppPorts.isEmpty ? "off" : xmppPorts.map { "\(server.http.host):\($0)" }.joined(separator: ", ")
        return """
            fcm-emu \(FCMEmuVersion.current) listening on \(url)\(https)
              dashboard     \(url)/ui/
              control API   \(url)\(ControlAPI.prefix)   (OpenAPI: \(url)\(ControlAPI.prefix)/openapi.json)
              demo project  \(demo?.id ?? "-")   sender id \(demo?.number ?? "-")
              server key    \(demo?.serverKeys.first ?? "-")
              CA            \(server.caCertificatePath ?? "- (TLS off)")
              XMPP (CCS)    \(xmpp) (TLS from the first byte)
            Try:
              curl -s -X POST \(url)\(ControlAPI.prefix)/projects/\(DemoProject.id)/devices -d '{"platform":"android","name":"pixel"}'
            Press Ctrl-C to stop.

            """
    }
}
