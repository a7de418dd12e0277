// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport

/// Applies transport fault rules in front of the router: an HTTP status with `Retry-After` in
/// the called API's dialect, Google's HTML 502, a dropped connection, a GOAWAY, a reset stream, a
/// call held unanswered, or latency.
struct TransportFaults: Sendable {
    let emulator: Emulator
    /// The server's open requests, which bound the calls held at once (`LiveRequests.maxHolds`).
    let live: LiveRequests

    /// `api` and `dialect`: the request's, from the router's mounts.
    func respond(_ request: HTTPRequest, api: API, dialect: Dialect, next: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        guard emulator.hasTransportFaults, let faultAPI = api.faultAPI, let injected = dialect.injected else { return next(request) }
        var projects: [String] = []
        if let project = AccessLog.project(request.path) { projects.append(String(project)) }
        if let header = request.header("project_id") { projects.append(header) }
        if let key = Authenticator.serverKey(request), let project = emulator.project(serverKey: key) {
            projects += [project.id, project.number]
        }
        let context = FaultContext(
            api: faultAPI, route: request.path, projects: projects,
            text: request.path + "\n" + String(decoding: request.body, as: UTF8.self)
        )
        guard let action = emulator.transportFault(context) else { return next(request) }
        switch action {
        case .status, .html502, .reset:
            // A send refused here never reaches the world: its retry still counts it.
            if let attempt = V1SendAttempt.of(request) { emulator.noteRefusedSend(fingerprint: attempt.fingerprint, target: attempt.target) }
        default: break
        }
        switch action {
        case .status(let status, let retryAfter):
            var response = injected(status)
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .html502:
            return GoogleFrontEnd.page(
                502, "Error 502 (Server Error)!!1",
                "<p><b>502.</b> <ins>That’s an error.</ins><p>The server encountered a temporary error and could not complete"
                    + " your request.<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>"
            )
        case .reset:
            return Self.dropped
        case .latency(let millis):
            var response = next(request)
            // A wait or a stream answers later anyway; a fault that drops the call stays one.
            if case .write = response.outcome { response.outcome = .delay(millis: millis) }
            return response
        case .deliverThenFail(let status, let retryAfter):
            // Served for real first: the message is accepted and delivered, events and all.
            let served = next(request)
            guard (200..<300).contains(served.status) else { return served }  // nothing was delivered to deny
            guard let status else { return Self.dropped }
            var response = injected(status)
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .goAway(let code, let debugData):
            let goAway = GoAway(errorCode: code, debugData: debugData)
            var response = goAway.isGraceful ? next(request) : Self.dropped
            response.outcome = .goAway(goAway)
            return response
        case .rstStream(let code):
            var response = Self.dropped
            response.outcome = .resetStream(code)
            return response
        case .hold:
            // Past the bound the call is refused as an overloaded FCM refuses it, in its dialect:
            // a client that keeps every held call open must not grow the server's memory.
            guard let slot = live.admit(.hold) else { return injected(503) }
            // No socket's client sees the status; an in-process caller (a scenario) reads 504, what
            // a gateway that gave up on the call would say.
            var response = HTTPResponse(status: 504)
            response.outcome = .hold(slot)
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
        response.outcome = .reset
        return response
    }
}

extension API {
    /// The API as fault rules name it (`match.api`); nil for those no rule reaches.
    var faultAPI: FaultAPI? {
        switch self {
        case .v1, .v1Topics: .v1
        case .batch: .batch
        case .legacy, .groups: .legacy
        case .iid: .iid
        case .oauth: .oauth
        default: nil  // the receiver side, metadata, the emulator's own APIs
        }
    }
}
