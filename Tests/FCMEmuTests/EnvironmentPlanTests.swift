// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Testing

@testable import fcm_emu

/// What `fcm-emu exec` sets for its command.
@Suite("exec environment")
struct EnvironmentPlanTests {
    let info = JSONValue.object([
        ("http", .object([("url", .string("http://127.0.0.1:41000"))])), ("https", .object([("url", .string("https://127.0.0.1:41001"))])),
        ("proxy", .object([("url", .string("http://127.0.0.1:41002"))])), ("caCertificate", .string("/state/ca.pem")),
        ("xmpp", .object([("ports", .array([.int(41003)]))])),
        ("demoProject", .object([("senderId", .string("123456789012")), ("serverKey", .string("AAAA:key"))])),
    ])

    @Test func aKeyFileAndTheProxy() {
        let plan = EnvironmentPlan(info: info, project: "my-app", credentials: .keyFile, keyFile: "/tmp/sa.json", bundle: "/tmp/bundle.pem")
        let vars = Dictionary(plan.variables, uniquingKeysWith: { first, _ in first })
        #expect(vars["GOOGLE_APPLICATION_CREDENTIALS"] == "/tmp/sa.json")
        #expect(vars["GCE_METADATA_HOST"] == nil)
        #expect(vars["HTTPS_PROXY"] == "http://127.0.0.1:41002")
        // Ruby's httpclient reads only http_proxy, for HTTPS too (CONNECT through it).
        #expect(vars["HTTP_PROXY"] == "http://127.0.0.1:41002" && vars["http_proxy"] == "http://127.0.0.1:41002")
        #expect(vars["NO_PROXY"] == "127.0.0.1,localhost,::1")
        #expect(vars["NODE_USE_ENV_PROXY"] == "1")
        #expect(vars["NODE_EXTRA_CA_CERTS"] == "/state/ca.pem")
        #expect(vars["SSL_CERT_FILE"] == "/tmp/bundle.pem" && vars["REQUESTS_CA_BUNDLE"] == "/tmp/bundle.pem")
        #expect(vars["JAVA_TOOL_OPTIONS"]?.contains("-Dhttps.proxyPort=41002") == true)
        #expect(vars["GOOGLE_CLOUD_PROJECT"] == "my-app" && vars["FIREBASE_CONFIG"] == #"{"projectId":"my-app"}"#)
        #expect(vars["FCM_EMU_CONTROL_API"] == "http://127.0.0.1:41000/emulator/v1")
        #expect(vars["FCM_EMU_XMPP_PORT"] == "41003")
        #expect(vars["FCM_EMU_CONTROL_TOKEN"] == nil, "none on loopback")
    }

    /// An emulator beyond loopback asks for its control token: the plan hands it on.
    @Test func theControlTokenOfAnEmulatorBeyondLoopback() throws {
        guard case .object(var fields) = info else { throw EnvironmentPlanError() }
        fields.append(("controlToken", .string("0123456789abcdef0123456789abcdef")))
        let plan = EnvironmentPlan(info: .object(fields), project: "my-app", credentials: .keyFile, keyFile: nil, bundle: "/tmp/b.pem")
        let vars = Dictionary(plan.variables, uniquingKeysWith: { first, _ in first })
        #expect(vars["FCM_EMU_CONTROL_TOKEN"] == "0123456789abcdef0123456789abcdef")
    }

    private struct EnvironmentPlanError: Error {}

    @Test func theMetadataServerInsteadOfAKeyFile() {
        let plan = EnvironmentPlan(info: info, project: "my-app", credentials: .metadata, keyFile: nil, bundle: "/tmp/bundle.pem")
        let vars = Dictionary(plan.variables, uniquingKeysWith: { first, _ in first })
        #expect(vars["GOOGLE_APPLICATION_CREDENTIALS"] == nil)
        #expect(vars["GCE_METADATA_HOST"] == "127.0.0.1:41000" && vars["GCE_METADATA_IP"] == "127.0.0.1:41000")
    }

    @Test func envPrintsShellDotenvAndJSON() {
        let variables = [("A", "plain"), ("B", "it's")]
        #expect(FCMEmu.Env.render(variables, as: .shell) == "export A='plain'\nexport B='it'\\''s'\n")
        #expect(FCMEmu.Env.render(variables, as: .dotenv) == "A='plain'\nB='it'\\''s'\n")
        #expect(FCMEmu.Env.render(variables, as: .json) == "{\n  \"A\": \"plain\",\n  \"B\": \"it's\"\n}\n")
    }
}
