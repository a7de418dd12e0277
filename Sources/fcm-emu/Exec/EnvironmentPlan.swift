// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The environment that points unmodified SDKs at a running emulator: what each Admin
/// SDK honours, from the emulator's info document. `exec` sets it for a command, only where the
/// caller has not set a variable already.
struct EnvironmentPlan {
    enum Credentials: String, CaseIterable, Sendable {
        /// A service-account key file whose `token_uri` points at the emulator.
        case keyFile = "key-file"
        /// The GCE metadata server, for Application Default Credentials with no key file.
        case metadata
    }

    let info: JSONValue
    let project: String
    let credentials: Credentials
    /// The key file written for `keyFile`; the CA bundle (the emulator's CA and the system roots).
    let keyFile: String?
    let bundle: String
    /// A Java trust store holding the CA, when a JDK was there to make one.
    var javaTrustStore: String?
    /// The project's sender id and first server key, for `FCM_EMU_SENDER_ID` and `FCM_EMU_SERVER_KEY`
    /// (the project's own, never the demo project's unless it is the project).
    var senderId: String?
    var serverKey: String?

    var variables: [(String, String)] {
        let http = info["http"]?["url"]?.stringValue ?? ""
        let hostPort = http.split(separator: "/").last.map(String.init) ?? ""
        let proxy = info["proxy"]?["url"]?.stringValue
        let ca = info["caCertificate"]?.stringValue ?? ""
        var out: [(String, String)] = [
            ("GOOGLE_CLOUD_PROJECT", project), ("GCLOUD_PROJECT", project),
            ("FIREBASE_CONFIG", JSONValue.object([("projectId", .string(project))]).encoded()),
        ]
        switch credentials {
        case .keyFile: if let keyFile { out.append(("GOOGLE_APPLICATION_CREDENTIALS", keyFile)) }
        case .metadata: out += [("GCE_METADATA_HOST", hostPort), ("GCE_METADATA_IP", hostPort)]
        }
        if let proxy {
            let port = proxy.split(separator: ":").last.map(String.init) ?? ""
            out += [
                // http_proxy too: clients whose HTTP library reads only it send HTTPS through it with
                // CONNECT (Ruby's httpclient 2.8, google-api-client's), and plain HTTP to the metadata
                // server's hard-coded 169.254.169.254 (googleauth's compute_engine.rb) reaches the emulator.
                ("HTTPS_PROXY", proxy), ("https_proxy", proxy), ("HTTP_PROXY", proxy), ("http_proxy", proxy),
                ("NO_PROXY", "127.0.0.1,localhost,::1"),
                ("no_proxy", "127.0.0.1,localhost,::1"), ("NODE_USE_ENV_PROXY", "1"),
                (
                    "JAVA_TOOL_OPTIONS",
                    "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=\(port) -Dhttp.nonProxyHosts=localhost|127.0.0.1" + javaTrust
                ),
            ]
        }
        out += [("NODE_EXTRA_CA_CERTS", ca), ("SSL_CERT_FILE", bundle), ("REQUESTS_CA_BUNDLE", bundle), ("CURL_CA_BUNDLE", bundle)]
        out += [
            ("FCM_EMU_URL", http), ("FCM_EMU_CONTROL_API", http + ControlAPI.prefix),
            ("FCM_EMU_HTTPS_URL", info["https"]?["url"]?.stringValue ?? ""), ("FCM_EMU_PROXY", proxy ?? ""), ("FCM_EMU_CA", ca),
            ("FCM_EMU_XMPP_PORT", info["xmpp"]?["ports"]?.arrayValue?.first?.int64Value.map(String.init) ?? ""),
            ("FCM_EMU_PROJECT", project), ("FCM_EMU_SENDER_ID", senderId ?? ""), ("FCM_EMU_SERVER_KEY", serverKey ?? ""),
            // Only an emulator beyond loopback has one; the CLI and the Python client send it.
            ("FCM_EMU_CONTROL_TOKEN", info["controlToken"]?.stringValue ?? ""),
        ]
        return out.filter { !$0.1.isEmpty }
    }

    private var javaTrust: String {
        guard let javaTrustStore else { return "" }
        return " -Djavax.net.ssl.trustStore=\(javaTrustStore) -Djavax.net.ssl.trustStoreType=PKCS12"
            + " -Djavax.net.ssl.trustStorePassword=\(JavaTrustStore.password)"
    }

    /// The emulator's CA after the system's roots, so clients that trust only this bundle still
    /// reach real hosts the proxy tunnels. Written as a new file renamed into place (never through
    /// a link at `path`).
    static func writeBundle(ca: String, to path: String) throws {
        let roots = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
        let system = roots.lazy.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.first ?? ""
        let own = try String(contentsOfFile: ca, encoding: .utf8)
        try PrivateFiles.write(Array((system + (system.hasSuffix("\n") || system.isEmpty ? "" : "\n") + own).utf8), to: path, mode: 0o644)
    }
}
