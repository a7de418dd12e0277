// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// `POST /batch`: up to 500 v1 requests in one `multipart/mixed` body, each answered in a part
/// of a `multipart/mixed` response, in order (docs/http-v1.md, "Paths"). Every sub-request goes through the
/// same router as a direct call, so validation and error bytes are identical.
struct BatchFront: Sendable {
    /// Answers one sub-request; the routes of the v1 API.
    let respond: @Sendable (HTTPRequest) -> HTTPResponse
    let nextBoundary: @Sendable () -> String

    func register(into router: inout Router) {
        router.mount(.batch, ["/batch", "/v1"], dialect: Self.dialect)
        router.add("POST", "/batch") { request, _ in batch(request) }
        // Go's `option.WithEndpoint("http://host:port/v1")` sets its batch URL to that same value
        // (firebase-admin-go messaging.go: `batchEndpoint := messagingEndpoint`), so SendAll and
        // SendMulticast post the multipart body to `/v1` itself.
        router.add("POST", "/v1") { request, _ in batch(request) }
    }

    /// v1's JSON errors for the batch as a whole; Google's pages for a path or method it lacks.
    static let dialect = GoogleFrontEnd.dialect.injecting(V1Front.injected, refused: V1Front.refused)

    func batch(_ request: HTTPRequest) -> HTTPResponse {
        guard let boundary = BatchRequestParser.boundary(contentType: request.header("Content-Type")) else {
            return V1Error.invalidArgument("Invalid multipart request: the Content-Type must be multipart/mixed with a boundary.").response
        }
        let parts: [BatchPart]
        do {
            parts = try BatchRequestParser.parse(request.body, boundary: boundary)
        } catch {
            return error.response
        }
        let outer = request.header("Authorization")
        let responseBoundary = nextBoundary()
        var body = ""
        var refusals: [Refusal] = []
        for part in parts {
            var inner = part.request
            // The part's own Authorization wins (googleapiclient may send one); otherwise the outer one applies.
            if inner.header("Authorization") == nil, let outer { inner.headers.append(("Authorization", outer)) }
            let answer =
                inner.path.hasPrefix("/v1/")
                ? respond(inner)
                : V1Error(status: 404, statusName: "NOT_FOUND", message: "Requested entity was not found.", details: []).response
            // Each refused part is a `refused` event of the batch, recorded with the batch's answer.
            refusals += answer.refusals.map { refusal in
                var refusal = refusal
                refusal.api = "batch"
                refusal.project = refusal.project ?? AccessLog.project(inner.path).map(String.init)
                return refusal
            }
            body += "--\(responseBoundary)\r\n"
            body += "Content-Type: application/http\r\n"
            body += "Content-ID: \(Self.responseID(part.contentID))\r\n\r\n"
            body += "HTTP/1.1 \(answer.status) \(HTTPResponse.reasonPhrase(answer.status))\r\n"
            for (name, value) in answer.headers { body += "\(name): \(value)\r\n" }
            body += "\r\n" + answer.bodyText + "\r\n"
        }
        body += "--\(responseBoundary)--\r\n"
        // Unquoted: firebase-admin-node 11's batch client splits `boundary=` on '=' and uses the raw value.
        var response = HTTPResponse(status: 200, contentType: "multipart/mixed; boundary=\(responseBoundary)", body: body)
        response.refusals = refusals
        return response
    }

    /// `response-<id>`, or `<response-<id>>` when the request's id was bracketed: googleapiclient
    /// maps responses by id and requires the brackets (`googleapiclient/http.py`, `_header_to_id`).
    static func responseID(_ id: String?) -> String {
        guard let id else { return "response-" }
        if id.hasPrefix("<"), id.hasSuffix(">") { return "<response-\(id.dropFirst().dropLast())>" }
        return "response-\(id)"
    }
}
