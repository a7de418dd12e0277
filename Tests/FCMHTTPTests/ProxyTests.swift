// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
import Testing

/// What the proxy makes of a request line; the relay itself is driven by real clients in the
/// interop suite (interop/test_proxy.py: firebase-admin unpatched, h2 inside the tunnel).
@Suite("HTTPS proxy")
struct ProxyTests {
    @Test func connectTargets() {
        #expect(ProxyRequestHandler.authority("fcm.googleapis.com:443").map { $0 == ("fcm.googleapis.com", 443) } == true)
        #expect(ProxyRequestHandler.authority("[::1]:5235").map { $0 == ("::1", 5235) } == true)
        #expect(ProxyRequestHandler.authority("fcm.googleapis.com") == nil)
        #expect(ProxyRequestHandler.authority("x:99999") == nil)
        #expect(ProxyRequestHandler.authority(":443") == nil)
    }

    @Test func absoluteFormBecomesOriginForm() {
        let metadata = ProxyRequestHandler.originForm("http://metadata.google.internal/computeMetadata/v1/project/project-id?alt=text")
        #expect(metadata?.host == "metadata.google.internal")
        #expect(metadata?.target == "/computeMetadata/v1/project/project-id?alt=text")
        #expect(ProxyRequestHandler.originForm("http://host:8080")?.target == "/")
        #expect(ProxyRequestHandler.originForm("/already/origin") == nil)
    }

    @Test func googlesHostsGoToTheEmulatorsOwnPorts() {
        let targets = ProxyHosts.Targets(tlsPort: 9093, xmppPorts: [5235: 40001, 5236: 40002])
        #expect(targets.port(for: "FCM.googleapis.com", 443) == 9093)
        #expect(targets.port(for: "oauth2.googleapis.com", 443) == 9093)
        #expect(targets.port(for: "fcm.googleapis.com", 8443) == nil)
        #expect(targets.port(for: "fcm-xmpp.googleapis.com", 5236) == 40002)
        #expect(targets.port(for: "example.com", 443) == nil)
    }
}
