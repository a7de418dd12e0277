// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMServer
import FCMTesting
import FCMTransport

/// One emulator and one route table for the whole fuzzing process, built once (an RSA key is
/// made per project, far too slow per input). Targets call `reset()` after each input, so every
/// input starts from the same world: a reproducer replays alone, and what an input stored is
/// freed before LeakSanitizer looks (it cannot follow Swift's tagged enum payload pointers,
/// so state kept across inputs would read as leaks). Every call goes through FCMTesting's
/// `InProcess`, the route table the transport calls for network clients, as the tests' calls do.
public final class HTTPHarness: Sendable {
    /// Registration tokens of the fixture devices, so that seeds can address real devices.
    public static let androidToken = "fuzz-android-token-0001"
    public static let iosToken = "fuzz-ios-token-0002"
    public static let webToken = "fuzz-web-token-0003"
    /// A project that does not accept any bearer (its id has no `demo-` prefix): the token
    /// fuzzer signs assertions for it and sends with what the token endpoint issues.
    public static let strictProject = "fuzz-strict"
    public static let strictNumber = "987654321098"
    public static let strictServerKey = "AAAAfuzz000:APA91bFUZZ-strict-project-server-key"
    /// The wall clock the fronts see, fixed so that seeds with `iat`/`exp` stay valid forever.
    public static let wallSeconds: Int64 = 1_800_000_000

    public static let shared = HTTPHarness()

    public let emulator: Emulator
    public let responder: HTTPResponder
    /// The strict project's service-account key file, as `fcm-emu credentials` writes it. The
    /// key pair lives in the route table's account store, which a reset keeps.
    public let strictKeyFile: JSONValue

    private init() {
        var fronts = FrontConfiguration(authMode: .strict, stateDirectory: nil)
        fronts.wallSeconds = { HTTPHarness.wallSeconds }
        let routes = InProcess(fronts: fronts, info: { .object([("fuzz", .bool(true))]) })
        emulator = routes.emulator
        responder = routes.responder
        Self.install(emulator)
        let response = responder.respond(HTTPRequest(method: "GET", target: "/emulator/v1/projects/\(Self.strictProject)/serviceAccount"))
        Fuzz.check(response.status == 200, "serviceAccount answered \(response.status): \(response.bodyText)")
        guard let file = try? JSONParser.parse(response.body) else { Fuzz.fail("serviceAccount is not JSON") }
        strictKeyFile = file
    }

    /// Empties the world and puts the fixtures back: the demo project (reset keeps it), three
    /// devices with known tokens on topics `news` and `weather`, and the strict project.
    public func reset() { Self.install(emulator) }

    private static func install(_ emulator: Emulator) {
        do {
            try emulator.reset()
            _ = try emulator.createDevice(
                DeviceSpec(platform: .android, appId: "com.example.app", name: "pixel", token: androidToken, topics: ["news", "weather"]),
                projectId: DemoProject.id
            )
            _ = try emulator.createDevice(
                DeviceSpec(platform: .ios, appId: "com.example.app", name: "iphone", token: iosToken, topics: ["news"]),
                projectId: DemoProject.id
            )
            _ = try emulator.createDevice(
                DeviceSpec(platform: .web, appId: "com.example.app", name: "browser", token: webToken, topics: ["weather"]),
                projectId: DemoProject.id
            )
            _ = try emulator.createProject(id: strictProject, number: strictNumber, serverKeys: [strictServerKey])
        } catch {
            Fuzz.fail("fixtures could not be installed: \(error)")
        }
    }

    /// Calls a route and checks what every answer must satisfy, whatever the input:
    /// a 2xx, 4xx or 5xx status (a 5xx is allowed only when `allow5xx`, as faults may script
    /// one), and a body that parses when it is declared as JSON.
    @discardableResult
    public func call(
        _ method: String, _ target: String, headers: [(String, String)], body: [UInt8], allow5xx: Bool = false
    ) -> HTTPResponse {
        let response = responder.respond(HTTPRequest(method: method, target: target, headers: headers, body: body))
        Self.checkResponse(response, what: "\(method) \(target)", allow5xx: allow5xx, input: body)
        return response
    }

    public static func checkResponse(_ response: HTTPResponse, what: String, allow5xx: Bool, input: [UInt8]) {
        let status = response.status
        let family = status / 100
        Fuzz.check(family == 2 || family == 4 || family == 5, "\(what) answered status \(status) for \(Fuzz.preview(input))")
        if family == 5 && !allow5xx {
            Fuzz.fail("\(what) answered \(status) (a server error) for \(Fuzz.preview(input)): \(Fuzz.preview(response.body))")
        }
        let mediaType = response.header("Content-Type")?.split(separator: ";").first?.lowercased() ?? ""
        if mediaType.hasSuffix("/json") || mediaType.hasSuffix("+json"), !response.body.isEmpty {
            Fuzz.checkJSON(response.body, what: "the \(status) answer to \(what)")
        }
    }

    /// `Authorization` for the legacy and IID fronts: the demo project's server key.
    public static let serverKeyAuthorization = ("Authorization", "key=\(DemoProject.serverKey)")
}
