// SPDX-License-Identifier: Apache-2.0

/// The hosts of Google's that the HTTP fronts stand in for: the TLS port's certificate covers
/// them, the access policy answers under their names, and the proxy joins a CONNECT to one of
/// them on 443 to the TLS port (docs/unmodified-apps.md).
public enum FrontHosts {
    /// HTTPS hosts the SDKs call: sends, IID, OAuth tokens (and google-auth's extra lookups;
    /// the names in firebase-admin's messaging and token modules).
    public static let https = [
        "fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com", "accounts.google.com",
        "gcm-http.googleapis.com", "android.googleapis.com", "iamcredentials.googleapis.com",
        // The client side, for real receivers (docs/receivers.md): check-in and GCM registration,
        // Firebase installations, FCM registrations.
        "android.clients.google.com", "firebaseinstallations.googleapis.com", "fcmregistrations.googleapis.com",
    ]
    /// The GCE metadata server's names: the address googleauth (Ruby, compute_engine.rb in 0.13) and
    /// google-auth-library-java hard-code, and the names the other SDKs try. A plain-HTTP request
    /// to one through the proxy is answered by the metadata front (docs/unmodified-apps.md).
    public static let metadata = ["169.254.169.254", "metadata.google.internal", "metadata"]

    /// Every name the fronts answer under; a plain-HTTP request to one never leaves the proxy.
    public static var all: [String] { https + metadata }
}
