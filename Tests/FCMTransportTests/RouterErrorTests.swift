// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import Testing

/// A route that throws: a `RouteError` is its own answer; any other error is the emulator's
/// mistake, answered as the API's 500 in its dialect.
@Suite("Router: errors a route throws")
struct RouterErrorTests {
    struct Refused: RouteError {
        var response: HTTPResponse { HTTPResponse(status: 409, contentType: "text/plain", body: "taken") }
    }

    struct Broken: Error {}

    static func router() -> Router {
        let dialect = Dialect(
            notFound: { _, _ in HTTPResponse(status: 404) }, tooLarge: { _ in HTTPResponse(status: 413) },
            refused: { HTTPResponse(status: $0.status) },
            injected: { HTTPResponse(status: $0, contentType: "text/plain", body: "dialect \($0)") })
        var router = Router(unmounted: dialect)
        router.add("GET", "/refused") { _, _ in throw Refused() }
        router.add("GET", "/broken") { _, _ in throw Broken() }
        router.add("GET", "/fine") { _, _ in HTTPResponse(status: 200) }
        return router
    }

    @Test func aRouteErrorIsItsOwnAnswer() {
        let answer = Self.router().respond(to: HTTPRequest(method: "GET", target: "/refused"))
        #expect(answer.status == 409)
        #expect(answer.bodyText == "taken")
    }

    @Test func anyOtherErrorIsTheDialects500() {
        let router = Self.router()
        let answer = router.respond(to: HTTPRequest(method: "GET", target: "/broken"))
        #expect(answer.status == 500)
        #expect(answer.bodyText == "dialect 500")
        #expect(router.respond(to: HTTPRequest(method: "GET", target: "/fine")).status == 200)
    }
}
