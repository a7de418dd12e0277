// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// The HTTP v1 API: `POST /v1/projects/{project}/messages:send`
/// (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send).
struct V1Front: Sendable {
    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        router.mount(.v1, ["/v1/*"], dialect: Self.dialect)
        router.add("POST", "/v1/projects/{project}/messages:send") { request, params in
            guard let project = params["project"] else { throw V1Error.routeMismatch }
            return try send(request, project: project)
        }
    }

    func send(_ request: HTTPRequest, project: String) throws(V1Error) -> HTTPResponse {
        // Credentials are answered before the body, as Google's front end does. What they need of
        // the world (the demo-project rule, the grant's project) is weighed in the send's own
        // world call, so nothing changes between the check and the send.
        let credentials = auth.v1Credentials(request)
        if case .refused(let failure) = credentials { throw failure.v1 }
        let send = try decode(request, project: project)
        var denied: AuthFailure?
        let sent: SendOutcome?
        do throws(FCMError) {
            sent = try emulator.send(send, from: .project(project)) { found in
                denied = credentials.check(found, named: project)
                return denied == nil
            }
        } catch {
            var refused = V1Error(error)
            refused.target = send.target.description
            throw refused
        }
        guard let outcome = sent else { throw (denied ?? .unauthenticated).v1 }
        return V1Response.sent(project: project, messageId: outcome.messageId)
    }

    /// The message a send's body holds. One that does not decode is refused with what it named,
    /// read leniently from the body parsed once, unless its credentials fail first: a request
    /// without them learns nothing of its body.
    private func decode(_ request: HTTPRequest, project: String) throws(V1Error) -> SendRequest {
        var json: JSONValue?
        do throws(V1Error) {
            let parsed = try V1MessageDecoder.parse(request.body)
            json = parsed
            var send = try V1MessageDecoder.decode(parsed)
            // A repeat of these bytes to this project is marked as a retry (docs/simulation.md).
            send.fingerprint = SendFingerprint.of(project: project, body: request.body)
            return send
        } catch {
            if let failure = auth.authenticateV1(request, project: project) { throw failure.v1 }
            var refused = error
            refused.target = json.flatMap(Self.namedTarget)
            throw refused
        }
    }

    /// The token, topic or condition of a message that did not decode, read leniently, as
    /// `MessageTarget.description` writes it.
    static func namedTarget(_ body: JSONValue) -> String? {
        guard let message = body["message"] else { return nil }
        if let token = message["token"]?.stringValue { return token }
        if let fid = message["fid"]?.stringValue { return "fid:" + fid }
        if let topic = message["topic"]?.stringValue { return "/topics/" + topic }
        return message["condition"]?.stringValue
    }

    /// Unknown paths and methods under `/v1/`, as Google's front end answers them.
    static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        if !allowed.isEmpty {
            return V1Error(status: 405, statusName: "INVALID_ARGUMENT", message: "Method not allowed", details: []).response
        }
        return V1Error(status: 404, statusName: "NOT_FOUND", message: "Requested entity was not found.", details: []).response
    }

    /// Google's JSON error (`{"error": {code, message, status, details}}`) for everything.
    static let dialect = Dialect(
        notFound: fallback,
        tooLarge: {
            V1Error(status: 413, statusName: "INVALID_ARGUMENT", message: "Request payload size exceeds the limit: \($0) bytes.", details: [])
                .response
        },
        refused: refused, injected: injected)

    static func refused(_ refusal: AccessPolicy.Refusal) -> HTTPResponse {
        V1Error(status: refusal.status, statusName: refusal.statusName, message: refusal.message, details: []).response
    }

    /// An injected status with the status name and `FcmError` code the SDKs map it by.
    static func injected(_ status: Int) -> HTTPResponse {
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
    }
}
