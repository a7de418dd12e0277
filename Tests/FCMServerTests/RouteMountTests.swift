// SPDX-License-Identifier: Apache-2.0

import FCMCore
@testable import FCMHTTP
import FCMJSON
@testable import FCMServer
@testable import FCMTransport
import Testing

/// Each front mounts the paths it owns with its API and dialect: the one table
/// the access policy, faults, refusal events, the access log and the 413 all read.
@Suite struct RouteMountTests {
    let responder = EmulatorRoutes.responder(emulator: Emulator(), maxBodyBytes: 64, info: { .null })

    private func api(_ method: String, _ path: String) -> API { responder.router.resolve(method: method, path: path).api }

    @Test func eachPathIsTheAPIThatMountedIt() {
        #expect(api("POST", "/v1/projects/p/messages:send") == .v1)
        #expect(api("GET", "/v1/projects/p/serviceAccounts/a/allowedLocations") == .v1)
        #expect(api("POST", "/v1/projects/p/registrations/t/topicSubscriptions") == .v1Topics)
        #expect(api("POST", "/v1/nothing/here") == .v1)
        #expect(api("POST", "/v1") == .batch)
        #expect(api("POST", "/batch") == .batch)
        #expect(api("POST", "/fcm/send") == .legacy)
        #expect(api("POST", "/gcm/send") == .legacy)
        #expect(api("POST", "/fcm/unknown") == .legacy)
        #expect(api("POST", "/fcm/notification") == .groups)
        #expect(api("POST", "/iid/v1:batchAdd") == .iid)
        #expect(api("POST", "/token") == .oauth)
        #expect(api("POST", "/o/oauth2/token") == .oauth)
        #expect(api("GET", "/computeMetadata/v1/project/project-id") == .metadata)
        #expect(api("GET", "/emulator/v1/health") == .control)
        #expect(api("GET", "/ui/") == .dashboard)
        #expect(api("GET", "/") == .other)
        #expect(api("GET", "/favicon.ico") == .other)
        // Percent-encoding does not move a path out of its API.
        #expect(api("POST", "/%66cm/send") == .legacy)
    }

    /// No route lies outside a mount: a front that adds one must declare its path.
    @Test func everyRouteLiesInAMount() {
        for (method, pattern) in responder.router.patterns where pattern != "/" {
            let path = pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix("{") ? "x" + segment[(segment.firstIndex(of: "}").map { segment.index(after: $0) } ?? segment.endIndex)...] : segment
            }.joined(separator: "/")
            #expect(api(method, path) != .other, "\(method) \(pattern)")
        }
    }

    /// A body over the limit, answered in the dialect of the API it was sent to.
    @Test func aBodyOverTheLimitIsRefusedInItsAPIsDialect() throws {
        let v1 = responder.tooLarge(HTTPRequest(method: "POST", target: "/v1/projects/p/messages:send"))
        #expect(v1.status == 413)
        #expect(try JSONParser.parse(v1.body)["error"]?["message"]?.stringValue == "Request payload size exceeds the limit: 64 bytes.")
        #expect(v1.api == "v1")
        let legacy = responder.tooLarge(HTTPRequest(method: "POST", target: "/fcm/send"))
        #expect(legacy.status == 413 && legacy.bodyText.contains("<H1>Request Entity Too Large</H1>"))
        #expect(legacy.api == "legacy")
        let control = responder.tooLarge(HTTPRequest(method: "POST", target: "/emulator/v1/projects"))
        #expect(try JSONParser.parse(control.body)["error"]?["message"]?.stringValue == "The request body is larger than 64 bytes")
        #expect(control.api == "control")
        // Paths no JSON API owns, and the APIs built on Google's front end, answer with its page.
        for target in ["/computeMetadata/v1/instance", "/iid/v1:batchAdd", "/token", "/nowhere"] {
            let page = responder.tooLarge(HTTPRequest(method: "POST", target: target))
            #expect(page.status == 413 && page.bodyText.contains("Your client issued a request that was too large."), "\(target)")
        }
    }

    /// An unknown path is answered by the API that owns it: v1's JSON, legacy's page, the control
    /// API's JSON, Google's 404 page elsewhere.
    @Test func anUnknownPathIsAnsweredByItsOwner() throws {
        let v1 = responder.respond(HTTPRequest(method: "POST", target: "/v1/projects/p/nothing"))
        #expect(v1.status == 404)
        #expect(try JSONParser.parse(v1.body)["error"]?["status"]?.stringValue == "NOT_FOUND")
        let legacy = responder.respond(HTTPRequest(method: "GET", target: "/fcm/send"))
        #expect(legacy.status == 405 && legacy.bodyText.contains("HTTP method GET is not supported by this URL"))
        let control = responder.respond(HTTPRequest(method: "GET", target: "/emulator/v1/nothing"))
        #expect(control.status == 404 && control.bodyText.contains("No control API route GET /emulator/v1/nothing"))
        let other = responder.respond(HTTPRequest(method: "GET", target: "/nothing"))
        #expect(other.status == 404 && other.bodyText.contains("<code>/nothing</code> was not found on this server"))
        #expect([v1.api, legacy.api, control.api, other.api] == ["v1", "legacy", "control", "other"])
    }

    /// Header names match in any case, ASCII letters only (RFC 9110 §5.1), with no copies made.
    @Test func headerNamesMatchInAnyASCIICase() {
        let request = HTTPRequest(method: "GET", target: "/", headers: [("content-TYPE", "a"), ("Hoſt", "b"), ("X-One", "c")])
        #expect(request.header("Content-Type") == "a")
        #expect(request.header("CONTENT-TYPE") == "a")
        // U+017F (long s) lowercases to nothing ASCII: "Hoſt" is not "Host".
        #expect(request.header("host") == nil)
        #expect(request.header("X-On") == nil)
        #expect(request.header("X-Ones") == nil)
        #expect("Bearer".equalsIgnoringASCIICase("bEARER"))
        #expect(!"Bearer".equalsIgnoringASCIICase("Bearer "))
    }
}
