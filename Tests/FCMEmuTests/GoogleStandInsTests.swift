// SPDX-License-Identifier: Apache-2.0

@testable import fcm_emu
import FCMTransport
import Testing

/// What serve's proxy stands in for: each front's hosts, joined to the listener that serves them.
@Suite("The proxy's stand-ins: Google's hosts to the emulator's own ports")
struct GoogleStandInsTests {
    @Test func googlesHostsGoToTheEmulatorsOwnPorts() {
        let standIns = GoogleStandIns.make(tlsPort: 9093, xmppPorts: [5235: 40001, 5236: 40002], mcsPort: nil)
        #expect(standIns.port(for: "FCM.googleapis.com", 443) == 9093)
        #expect(standIns.port(for: "oauth2.googleapis.com", 443) == 9093)
        #expect(standIns.port(for: "fcm.googleapis.com", 8443) == nil)
        #expect(standIns.port(for: "fcm-xmpp.googleapis.com", 5236) == 40002)
        #expect(standIns.port(for: "gcm.googleapis.com", 5235) == 40001)
        #expect(standIns.port(for: "example.com", 443) == nil)
        // The receiver side: its HTTPS hosts on the TLS port, MCS on the MCS port when there is one.
        #expect(standIns.port(for: "android.clients.google.com", 443) == 9093)
        #expect(standIns.port(for: "firebaseinstallations.googleapis.com", 443) == 9093)
        #expect(standIns.port(for: "mtalk.google.com", 5228) == nil)
        #expect(standIns.answersPlainHTTP("169.254.169.254") && standIns.answersPlainHTTP("metadata.google.internal"))
        let withMCS = GoogleStandIns.make(tlsPort: 9093, xmppPorts: [:], mcsPort: 40003)
        #expect(withMCS.port(for: "MTALK.google.com", 5228) == 40003)
        #expect(withMCS.port(for: "mtalk.google.com", 443) == nil)
        #expect(withMCS.port(for: "fcm-xmpp.googleapis.com", 5235) == nil, "no XMPP listener")
    }
}
