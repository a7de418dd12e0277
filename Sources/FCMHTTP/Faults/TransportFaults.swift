// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// Applies transport fault rules in front of the router: an HTTP status with `Retry-After` in
/// the called API's dialect, Google's HTML 502, a dropped connection, a GOAWAY, or latency.
struct TransportFaults: Sendable {
    let emulator: Emulator

    /// Which API a path belongs to; nil for the control API, which is never faulted.
    static func api(_ path: String) -> FaultAPI? {
        if path.hasPrefix("/v1/") { return .v1 }
        if path == "/batch" || path == "/v1" { return .batch }
        if path.hasPrefix("/fcm/") || path.hasPrefix("/gcm/") { return .legacy }
        if path.hasPrefix("/iid/") { return .iid }
        if path == "/token" || path.hasPrefix("/o/oauth2/") || path.hasPrefix("/oauth2/") { return .oauth }
        return nil
    }

    func respond(_ request: HTTPRequest, next: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        guard emulator.hasTransportFaults, let api = Self.api(request.path) else { return next(request) }
        let segments = request.path.split(separator: "/")
        var projects: [String] = []
        if let i = segments.firstIndex(of: "projects"), i + 1 < segments.count { projects.append(String(segments[i + 1])) }
        if let header = request.header("project_id") { projects.append(header) }
        if let key = Authenticator.serverKey(request), let project = emulator.project(serverKey: key) {
            projects += [project.id, project.number]
        }
        let context = FaultContext(
            api: api, route: request.path, projects: projects,
            text: request.path + "\n" + String(decoding: request.body, as: UTF8.self)
        )
        guard let action = emulator.transportFault(context) else { return next(request) }
        switch action {
        case .status(let status, let retryAfter):
            var response = Self.statusResponse(status, api: api)
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .html502:
            return Self.page(
                502, "Error 502 (Server Error)!!1",
                "<p><b>502.</b> <ins>That’s an error.</ins><p>The server encountered a temporary error and could not complete"
                    + " your request.<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>"
            )
        case .reset:
            return Self.dropped
        case .latency(let millis):
            var response = next(request)
            response.delayMillis = millis
            return response
        case .deliverThenFail(let status, let retryAfter):
            // Served for real first: the message is accepted and delivered, events and all.
            let served = next(request)
            guard (200..<300).contains(served.status) else { return served }  // nothing was delivered to deny
            guard let status else { return Self.dropped }
            var response = Self.statusResponse(status, api: api)
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .goAway(let code, let debugData):
            let goAway = GoAway(errorCode: code, debugData: debugData)
            var response = goAway.isGraceful ? next(request) : Self.dropped
            if goAway.isGraceful { response.closeConnection = true }
            response.goAway = goAway
            return response
        case .error, .drain, .slowHandshake:
            // The core applies errors in the API's dialect; drains are XMPP's; handshakes come
            // before any request (HTTPServer's SlowHandshakeHandler).
            return next(request)
        }
    }

    /// No answer: the connection is dropped.
    static var dropped: HTTPResponse {
        var response = HTTPResponse(status: 500)
        response.resetConnection = true
        return response
    }

    /// An injected status as each API writes it.
    static func statusResponse(_ status: Int, api: FaultAPI) -> HTTPResponse {
        switch api {
        case .v1, .batch:
            let (name, code): (String, String?) =
                switch status {
                case 400: ("INVALID_ARGUMENT", "INVALID_ARGUMENT")
                case 401: ("UNAUTHENTICATED", nil)
                case 403: ("PERMISSION_DENIED", nil)
                case 404: ("NOT_FOUND", "UNREGISTERED")
                case 429: ("RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED")
                case 500: ("INTERNAL", "INTERNAL")
                case 503: ("UNAVAILABLE", "UNAVAILABLE")
                default: ("UNKNOWN", nil)
                }
            let message = status == 503 ? "The service is currently unavailable." : "Injected error \(status)."
            return V1Error(status: status, statusName: name, message: message, details: code.map { [.fcmError($0)] } ?? []).response
        case .legacy:
            return page(
                status, HTTPResponse.reasonPhrase(status), "<H1>\(HTTPResponse.reasonPhrase(status))</H1>\n<H2>Error \(status)</H2>")
        case .iid:
            return IIDFront.error(status, status == 503 ? "Unavailable" : HTTPResponse.reasonPhrase(status))
        case .oauth, .xmpp:
            let error = status >= 500 ? "temporarily_unavailable" : "invalid_request"
            return HTTPResponse(
                status: status, contentType: "application/json; charset=utf-8",
                body: JSONValue.object([("error", .string(error)), ("error_description", .string("Injected error \(status)."))]).encoded())
        }
    }

    private static func page(_ status: Int, _ title: String, _ body: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "text/html; charset=UTF-8",
            body: "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>\(title)</title>\n  \(body)\n")
    }
}
