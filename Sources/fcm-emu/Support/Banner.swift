// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMServer

/// What `serve` prints on standard output once it listens: enough to start using it.
enum Banner {
    static func text(server: EmulatorServer, xmppPorts: [Int] = [], mcsPort: Int? = nil) -> String {
        let url = server.baseURL
        // Where a client on this machine connects (a wildcard listen address is none).
        let host = EmulatorServer.urlHost(server.http.host)
        let everywhere = host != server.http.host ? "  (bound to \(server.http.host): every interface; other machines use this one's address)\n" : ""
        let demo = try? server.emulator.project(DemoProject.id)
        let https = server.https.map { "  and https://\(host):\($0.port) (HTTP/2)" } ?? ""
        let xmpp = xmppPorts.isEmpty ? "off" : xmppPorts.map { "\(host):\($0)" }.joined(separator: ", ")
        // Beyond loopback the control API asks for a token (docs/security.md): print it, and the
        // dashboard's address with it in the fragment, which the browser never sends.
        let token = server.controlToken.map { "  control token \($0)   (Authorization: Bearer …; FCM_EMU_CONTROL_TOKEN for the CLI)\n" } ?? ""
        let bearer = server.controlToken.map { " -H 'Authorization: Bearer \($0)'" } ?? ""
        return """
            fcm-emu \(FCMEmuVersion.current) listening on \(url)\(https)
            \(everywhere)  dashboard     \(EmulatorServer.dashboardURL(base: url, token: server.controlToken))
              control API   \(url)\(ControlAPI.prefix)   (OpenAPI: \(url)\(ControlAPI.prefix)/openapi.json)
            \(token)  demo project  \(demo?.id ?? "-")   sender id \(demo?.number ?? "-")
              server key    \(demo?.serverKeys.first ?? "-")
              CA            \(server.caCertificatePath ?? "- (TLS off)")
              XMPP (CCS)    \(xmpp) (TLS from the first byte)
              MCS           \(mcsPort.map { "\(host):\($0) (real receivers, as mtalk.google.com:5228)" } ?? "off")
            Try:
              curl -s -X POST \(url)\(ControlAPI.prefix)/projects/\(DemoProject.id)/devices -H 'Content-Type: application/json'\(bearer) \\
                -d '{"platform":"android","name":"pixel"}'
            Press Ctrl-C to stop.

            """
    }
}
