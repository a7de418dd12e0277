// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport
import Logging
import Testing

/// A page in the developer's browser can neither change nor read the emulator
/// (docs/security.md). Each test starts its own server on free loopback ports and speaks raw
/// HTTP/1.1, so the exact headers a browser or a rebinding page would send reach the server.
@Suite("Access policy: Host, Origin, content types, control token")
struct AccessPolicyTests {
    /// A live server, its port, and one call per connection.
    struct Live {
        let server: EmulatorServer
        var port: Int { server.http.port }

        func call(
            _ method: String, _ target: String, host: String? = nil, headers: [(String, String)] = [], body: String = ""
        ) throws -> RawConnection.Response {
            let connection = try RawConnection(port: port)
            var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
            try connection.send(head + body)
            return try connection.readResponse()
        }

        /// A JSON call as the CLI and SDK harnesses make it: right type, no Origin.
        func json(_ method: String, _ target: String, _ body: String = "", token: String? = nil) throws -> RawConnection.Response {
            var headers = [("Content-Type", "application/json")]
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            return try call(method, target, headers: headers, body: body)
        }

        var deviceCount: Int { (try? server.emulator.devices(projectId: DemoProject.id, offset: 0, limit: 10).total) ?? -1 }
    }

    private func withServer(
        allowedHosts: [String] = [], token: ControlTokenSetting = .automatic, logger: Logger = .quiet, _ body: (Live) async throws -> Void
    ) async throws {
        try await withLiveServer(allowedHosts: allowedHosts, controlToken: token, logger: logger) { try await body(Live(server: $0)) }
    }

    /// A browser's "simple" requests (no preflight): text/plain, form-encoded, or a typeless Blob.
    @Test func simpleRequestBodiesAreRefusedWith415AndChangeNothing() async throws {
        try await withServer { live in
            #expect(try live.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"android"}"#).status == 201)
            let body = #"{"platform":"android","count":5}"#
            for type in ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
                let headers = type.map { [("Content-Type", $0)] } ?? []
                let made = try live.call("POST", "/emulator/v1/projects/demo-fcm-emu/devices", headers: headers, body: body)
                #expect(made.status == 415, "\(type ?? "no type"): \(made.body)")
                #expect(made.body.contains("application/json"))
                let reset = try live.call("POST", "/emulator/v1/reset", headers: headers, body: "{}")
                #expect(reset.status == 415)
            }
            #expect(live.deviceCount == 1)
        }
    }

    @Test func aTarImportNeedsTheTarTypeNotJustTheQuery() async throws {
        try await withServer { live in
            #expect(try live.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"ios"}"#).status == 201)
            for target in ["/emulator/v1:import?format=tar", "/emulator/v1%3Aimport?format=tar"] {
                let answer = try live.call("POST", target, headers: [("Content-Type", "text/plain")], body: "not a tar")
                #expect(answer.status == 415, "\(target): \(answer.body)")
                #expect(answer.body.contains("application/x-tar"))
            }
            #expect(live.deviceCount == 1)
        }
    }

    @Test func aForeignOriginIsRefusedInEachAPIsDialectAndLoggedOnce() async throws {
        let capture = LogCapture()
        try await withServer(logger: capture.logger(level: .info)) { live in
            #expect(try live.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"web"}"#).status == 201)
            let page = [("Origin", "http://evil.example"), ("Content-Type", "application/json")]
            let reset = try live.call("POST", "/emulator/v1/reset", headers: page, body: "{}")
            #expect(reset.status == 403)
            let error = try JSONParser.parse(Array(reset.body.utf8))["error"]
            #expect(error?["status"]?.stringValue == "PERMISSION_DENIED")
            #expect(error?["code"]?.int64Value == 403)
            #expect(try live.call("DELETE", "/emulator/v1/faults", headers: page).status == 403)
            let v1 = try live.call(
                "POST", "/v1/projects/demo-fcm-emu/messages:send", headers: page + [("Authorization", "Bearer any")],
                body: #"{"message":{"topic":"news"}}"#)
            #expect(v1.status == 403)
            #expect(try JSONParser.parse(Array(v1.body.utf8))["error"]?["status"]?.stringValue == "PERMISSION_DENIED")
            let legacy = try live.call(
                "POST", "/fcm/send", headers: page + [("Authorization", "key=AAAAdemo000:x")], body: #"{"to":"/topics/news"}"#)
            #expect(legacy.status == 403)
            #expect(legacy.header("Content-Type")?.hasPrefix("text/html") == true)
            // A file:// page or a sandboxed frame sends "null"; a page on another port of localhost is another origin.
            #expect(try live.call("POST", "/emulator/v1/reset", headers: [("Origin", "null")]).status == 403)
            #expect(try live.call("POST", "/emulator/v1/reset", headers: [("Origin", "http://127.0.0.1:1")]).status == 403)
            // No-cors GETs send no Origin, but do send Fetch Metadata.
            let info = try live.call("GET", "/emulator/v1/info", headers: [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "no-cors")])
            #expect(info.status == 403)
            #expect(live.deviceCount == 1)
            // The emulator's own origin (the dashboard) is served.
            let own = try live.call(
                "POST", "/emulator/v1/clock:pause", headers: [("Origin", "http://127.0.0.1:\(live.port)")])
            #expect(own.status == 200)
            let warnings = capture.logged.filter { $0.level == .warning && $0.message.contains("origin") }
            #expect(warnings.count == 1, "\(warnings.map(\.message))")
        }
    }

    @Test func unknownHostsAreRefusedAndNothingIsRead() async throws {
        try await withServer { live in
            let serverKey = try #require(live.server.emulator.project(DemoProject.id).serverKeys.first)
            for host in ["evil.example", "evil.example:\(live.port)", "fcm.googleapis.com", "metadata.google.internal", "127.0.0.1.evil.example"] {
                for target in ["/emulator/v1/info", "/%65mulator/v1/info", "/ui/", "/emulator/v1/projects/demo-fcm-emu/serviceAccount"] {
                    let answer = try live.call("GET", target, host: host)
                    #expect(answer.status == 403, "\(host) \(target)")
                    #expect(!answer.body.contains(serverKey))
                    #expect(!answer.body.contains("PRIVATE KEY"))
                }
            }
            let refused = try live.call("GET", "/emulator/v1/info", host: "evil.example")
            #expect(refused.body.contains("evil.example") && refused.body.contains("allowedHosts"))
            #expect(refused.body.contains(#""status": "PERMISSION_DENIED""#) || refused.body.contains(#""status":"PERMISSION_DENIED""#))
            for host in ["localhost", "localhost:\(live.port)", "app.localhost", "127.0.0.1", "127.9.8.7:\(live.port)", "[::1]:\(live.port)"] {
                #expect(try live.call("GET", "/emulator/v1/info", host: host).status == 200, "\(host)")
            }
            // Google's names reach the fronts (the DNS route, the proxy), never the control API.
            let send = try live.call(
                "POST", "/v1/projects/demo-fcm-emu/messages:send", host: "fcm.googleapis.com",
                headers: [("Authorization", "Bearer any"), ("Content-Type", "application/json")], body: #"{"message":{"topic":"t"}}"#)
            #expect(send.status == 200)
            let metadata = try live.call(
                "GET", "/computeMetadata/v1/project/project-id", host: "metadata.google.internal", headers: [("Metadata-Flavor", "Google")])
            #expect(metadata.status == 200)
            #expect(try live.call("POST", "/fcm/send", host: "evil.example").status == 403)
        }
    }

    @Test func allowedHostsAdmitsTheNamesGiven() async throws {
        try await withServer(allowedHosts: ["fcm-emu", "emu.test:8080"]) { live throws in
            #expect(try live.call("GET", "/emulator/v1/info", host: "fcm-emu:\(live.port)").status == 200)
            #expect(try live.call("GET", "/emulator/v1/info", host: "emu.test:8080").status == 200)
            #expect(try live.call("GET", "/emulator/v1/info", host: "emu.test:8081").status == 403)
            #expect(try live.call("POST", "/emulator/v1/reset", host: "fcm-emu", headers: [("Origin", "http://fcm-emu")]).status == 200)
        }
    }

    @Test func theControlTokenGuardsAllButHealth() async throws {
        let token = "s3cret-token-for-tests-0123456789"
        try await withServer(token: .value(token)) { live in
            #expect(live.server.controlToken == token)
            #expect(live.server.info["controlToken"]?.stringValue == token)
            #expect(try live.call("GET", "/emulator/v1/health").status == 200)
            let refused = try live.call("GET", "/emulator/v1/info")
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try live.call("GET", "/emulator/v1/info", headers: [("Authorization", "Bearer wrong")]).status == 401)
            #expect(try live.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"web"}"#).status == 401)
            #expect(live.deviceCount == 0)
            #expect(try live.json("POST", "/emulator/v1/projects/demo-fcm-emu/devices", #"{"platform":"web"}"#, token: token).status == 201)
            #expect(try live.call("GET", "/emulator/v1/info", headers: [("Authorization", "Bearer \(token)")]).status == 200)
            // The query token is for event streams only (EventSource sends no headers), and the route never sees it.
            #expect(try live.call("GET", "/emulator/v1/info?access_token=\(token)").status == 401)
            let connection = try RawConnection(port: live.port)
            try connection.send("GET /emulator/v1/events:stream?kind=stored&access_token=\(token) HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let stream = try connection.readResponse()
            #expect(stream.status == 200, "\(stream)")
            // The FCM fronts keep their own credentials; the control token is not theirs to ask.
            let send = try live.call(
                "POST", "/v1/projects/demo-fcm-emu/messages:send", headers: [("Authorization", "Bearer any"), ("Content-Type", "application/json")],
                body: #"{"message":{"topic":"t"}}"#)
            #expect(send.status == 200)
        }
    }

    @Test func aTokenIsMadeBeyondLoopbackOnly() {
        for host in ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"] {
            #expect(ControlTokenSetting.automatic.resolve(host: host) == nil, "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "build-box"] {
            let token = ControlTokenSetting.automatic.resolve(host: host)
            #expect(token?.count == 32 && token?.allSatisfy(\.isHexDigit) == true, "\(host)")
        }
        #expect(ControlTokenSetting.automatic.resolve(host: "0.0.0.0") != ControlTokenSetting.automatic.resolve(host: "0.0.0.0"))
        #expect(ControlTokenSetting.off.resolve(host: "0.0.0.0") == nil)
        #expect(ControlTokenSetting.value("given").resolve(host: "127.0.0.1") == "given")
    }

    /// The plane comes from the API the router finds for the path, read as routes read it.
    @Test func planesAreReadAsTheRouterReadsPaths() {
        let router = EmulatorRoutes.responder(emulator: Emulator(), maxBodyBytes: 1024, info: { .null }).router
        func plane(_ path: String) -> AccessPolicy.Plane { router.resolve(method: "GET", path: path).api.plane }
        #expect(plane("/emulator/v1/info") == .control)
        #expect(plane("/%65mulator/v1/info") == .control)
        #expect(plane("/emulator/v1:import") == .control)
        #expect(plane("/emulator%3Av1") == .control)
        #expect(plane("/emulator") == .control)
        #expect(plane("/ui") == .dashboard)
        #expect(plane("/ui/app.js") == .dashboard)
        #expect(plane("/v1/projects/p/messages:send") == .standIn)
        #expect(plane("/") == .standIn)
        #expect(plane("/emulatorx/v1/info") == .standIn)
    }
}
