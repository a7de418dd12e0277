// SPDX-License-Identifier: Apache-2.0

/// The one list of Google's host names that fcm-emu stands in for: the TLS certificate covers
/// them (`LocalCA`), and the proxy sends a CONNECT to one of them to the emulator's own port for
/// it (HTTPS on 443, CCS on 5235 and 5236) instead of to Google.
public enum ProxyHosts {
    /// HTTPS hosts the SDKs call: sends, IID, OAuth tokens (and google-auth's extra lookups).
    public static let https = [
        "fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com", "accounts.google.com",
        "gcm-http.googleapis.com", "android.googleapis.com", "iamcredentials.googleapis.com",
        // The client side, for real receivers (docs/receivers.md): check-in and GCM registration,
        // Firebase installations, FCM registrations.
        "android.clients.google.com", "firebaseinstallations.googleapis.com", "fcmregistrations.googleapis.com",
    ]
    /// The GCE metadata server's names: the address googleauth (Ruby, compute_engine.rb in 0.13) and
    /// google-auth-library-java hard-code, and the names the other SDKs try. A plain-HTTP request
    /// to one through the proxy is answered by the emulator's metadata front (docs/unmodified-apps.md).
    public static let metadata = ["169.254.169.254", "metadata.google.internal", "metadata"]

    /// Whether a plain-HTTP request (absolute form) to `host` is the emulator's to answer, on any
    /// port: a name of Google's never leaves through the proxy.
    public static func answersPlainHTTP(_ host: String) -> Bool {
        let host = host.lowercased()
        return metadata.contains(host) || https.contains(host)
    }

    /// MCS, the connection receivers hold open (docs/receivers.md), on FCM's port.
    public static let mcs = "mtalk.google.com"
    public static let mcsPort = 5228
    /// CCS hosts, on FCM's production and testing ports.
    public static let xmpp = ["fcm-xmpp.googleapis.com", "gcm-xmpp.googleapis.com", "gcm.googleapis.com", "gcm-preprod.googleapis.com"]
    public static let xmppPorts = [5235, 5236]

    /// Where the emulator serves each kind.
    public struct Targets: Sendable {
        public var tlsPort: Int?
        /// FCM's port (5235 or 5236) → the emulator's XMPP port for it.
        public var xmppPorts: [Int: Int]
        /// The emulator's MCS port, for `mtalk.google.com:5228`.
        public var mcsPort: Int?

        public init(tlsPort: Int?, xmppPorts: [Int: Int], mcsPort: Int? = nil) {
            self.tlsPort = tlsPort
            self.xmppPorts = xmppPorts
            self.mcsPort = mcsPort
        }

        /// The local port that stands in for `host:port`, or nil when the emulator does not.
        public func port(for host: String, _ port: Int) -> Int? {
            let host = host.lowercased()
            if port == 443, ProxyHosts.https.contains(host) { return tlsPort }
            if ProxyHosts.xmpp.contains(host) { return xmppPorts[port] }
            if host == ProxyHosts.mcs, port == ProxyHosts.mcsPort { return mcsPort }
            return nil
        }
    }
}
