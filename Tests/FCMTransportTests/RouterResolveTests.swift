// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import Testing

/// How a path finds its route: among the routes of its length and first segment, read
/// percent-decoded as routes and mounts read every segment, most specific first.
@Suite("Router: resolving a path")
struct RouterResolveTests {
    /// A 405's body is the methods the path has.
    static let dialect = Dialect(
        notFound: { _, allowed in
            HTTPResponse(status: allowed.isEmpty ? 404 : 405, contentType: "text/plain", body: allowed.joined(separator: ","))
        },
        tooLarge: { _ in HTTPResponse(status: 413) }, refused: { HTTPResponse(status: $0.status) }, injected: { HTTPResponse(status: $0) })
    static let messages = API("messages")

    static func answering(_ name: String) -> RouteHandler {
        { _, parameters in
            let captured = ["project", "device", "id"].compactMap { key in parameters[key].map { "\(key)=\($0)" } }
            return HTTPResponse(status: 200, contentType: "text/plain", body: ([name] + captured).joined(separator: " "))
        }
    }

    static func router() -> Router {
        var router = Router(unmounted: dialect)
        router.mount(messages, ["/v1/*"], dialect: dialect)
        router.add("POST", "/v1/projects/{project}/messages:send", answering("send"))
        router.add("GET", "/v1/projects/{project}/messages", answering("list"))
        router.add("POST", "/v1/projects/{project}/devices/{device}:uninstall", answering("uninstall"))
        router.add("GET", "/v1/projects/{project}/devices/{device}", answering("device"))
        router.add("DELETE", "/v1/projects/{project}/devices/{device}", answering("delete"))
        router.add("GET", "/emulator/projects/{project}/messages", answering("emulator list"))
        return router
    }

    static func answer(_ method: String, _ target: String, _ router: Router = router()) -> (Int, String) {
        let response = router.respond(to: HTTPRequest(method: method, target: target))
        return (response.status, response.bodyText)
    }

    @Test func aPathFindsTheRouteOfItsFirstSegmentAndLength() {
        #expect(Self.answer("POST", "/v1/projects/p1/messages:send") == (200, "send project=p1"))
        #expect(Self.answer("GET", "/v1/projects/p1/messages") == (200, "list project=p1"))
        #expect(Self.answer("GET", "/emulator/projects/p1/messages") == (200, "emulator list project=p1"))
        #expect(Self.answer("GET", "/v2/projects/p1/messages").0 == 404)
        #expect(Self.answer("GET", "/v1/projects/p1/messages/x").0 == 404)
        #expect(Self.router().resolve(method: "POST", path: "/v1/projects/p1/messages:send").api == Self.messages)
    }

    @Test func anEscapedSegmentIsReadDecodedFirstSegmentIncluded() {
        #expect(Self.answer("POST", "/%761/projects/p1/messages:send") == (200, "send project=p1"))
        #expect(Self.answer("POST", "/v1/pro%6Aects/p%20q/messages%3Asend") == (200, "send project=p q"))
        #expect(Self.router().resolve(method: "POST", path: "/%761/projects/p1/messages:send").api == Self.messages)
        // A malformed escape decodes to nothing, and so matches no literal.
        #expect(Self.answer("POST", "/%7/projects/p1/messages:send").0 == 404)
    }

    @Test func theMostSpecificRouteWinsAndA405ListsOnlyThePathsMethods() {
        #expect(Self.answer("POST", "/v1/projects/p/devices/0:uninstall") == (200, "uninstall project=p device=0"))
        #expect(Self.answer("GET", "/v1/projects/p/devices/0:uninstall") == (405, "POST"))
        #expect(Self.answer("GET", "/v1/projects/p/devices/0") == (200, "device project=p device=0"))
        #expect(Self.answer("PUT", "/v1/projects/p/devices/0") == (405, "GET,DELETE"))
    }

    @Test func aRouteThatCapturesItsFirstSegmentIsComparedWithEveryPathOfItsLength() {
        var router = Self.router()
        router.add("GET", "/{id}/messages", Self.answering("any"))
        router.add("GET", "/fixed/messages", Self.answering("fixed"))
        #expect(Self.answer("GET", "/fixed/messages", router) == (200, "fixed"))
        #expect(Self.answer("GET", "/other/messages", router) == (200, "any id=other"))
        #expect(Self.answer("GET", "/v1/projects/p1/messages", router) == (200, "list project=p1"))
    }

    @Test func escapesPastTheSixtyFourthSegmentAreStillDecoded() {
        var router = Self.router()
        let pattern = "/deep" + String(repeating: "/x", count: 69) + "/{id}"
        router.add("GET", pattern, Self.answering("deep"))
        let path = "/deep" + String(repeating: "/x", count: 68) + "/%78/a%62c"
        #expect(Self.answer("GET", path, router) == (200, "deep id=abc"))
    }
}
