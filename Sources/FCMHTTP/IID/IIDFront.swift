// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Instance ID topic management, `iid.googleapis.com` (the Instance ID server reference,
/// https://developers.google.com/instance-id/reference/server; docs/http-v1.md): batch subscribe and
/// unsubscribe, app-instance info, and single relations. Errors use IID's own `{"error": "…"}`
/// shape; a success entry is exactly `{}` (Go's SDK panics on anything else).
struct IIDFront: Sendable {
    static let maxTokens = 1000

    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        router.mount(.iid, ["/iid/*"], dialect: Self.dialect)
        router.add("POST", "/iid/v1:batchAdd") { request, _ in batch(request, subscribe: true) }
        router.add("POST", "/iid/v1:batchRemove") { request, _ in batch(request, subscribe: false) }
        router.add("GET", "/iid/info/{token}") { request, params in
            guard let token = params["token"] else { return Self.error(500, "InternalError") }
            return info(request, token: token)
        }
        router.add("POST", "/iid/v1/{token}/rel/topics/{topic}") { request, params in
            guard let token = params["token"], let topic = params["topic"] else { return Self.error(500, "InternalError") }
            return relate(request, token: token, topic: topic)
        }
    }

    /// Google's pages for what never reaches IID; IID's own `{"error": …}` for an injected status.
    static let dialect = GoogleFrontEnd.dialect.injecting { status in
        error(status, status == 503 ? "Unavailable" : HTTPResponse.reasonPhrase(status))
    }

    static func error(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json; charset=UTF-8",
            body: JSONValue.object([("error", .string(text))]).encoded() + "\n")
    }

    private static func ok(_ body: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json; charset=UTF-8", body: body.encoded() + "\n")
    }

    /// The sender a call about these tokens acts for (nil: lax, each token's own), or the IID error
    /// to answer with.
    private func sender(_ request: HTTPRequest, tokens: [String]) -> Result<String?, AuthFailure> {
        auth.authenticateIID(request, registrationTokens: tokens)
    }

    private func batch(_ request: HTTPRequest, subscribe: Bool) -> HTTPResponse {
        let project: String?
        // Parsed once; credentials are answered first, so the tokens are read leniently here only
        // to learn their projects, and a body that is not JSON is refused after them.
        let parsed = try? JSONParser.parse(request.body)
        let named = parsed?["registration_tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch sender(request, tokens: named) {
        case .failure(let failure): return Self.error(failure.status, failure.iidText)
        case .success(let p): project = p
        }
        guard let body = parsed, case .object = body else {
            return Self.error(400, "InvalidJSON")
        }
        guard let to = body["to"]?.stringValue else { return Self.error(400, "MissingTopic") }
        guard let topic = ManagedTopicName.bare(to) else { return Self.error(400, "Topic name format is invalid") }
        guard let tokenValues = body["registration_tokens"]?.arrayValue, !tokenValues.isEmpty else {
            return Self.error(400, "MissingIIdToken")
        }
        guard tokenValues.count <= Self.maxTokens else { return Self.error(400, "TooManyTokens") }
        let tokens = tokenValues.map { $0.stringValue ?? "" }
        let results: [FCMError?]
        do {
            results = try emulator.manageTopic(topic, tokens: tokens, subscribe: subscribe, senderProjectId: project)
        } catch {
            return Self.failure(error)
        }
        let rendered: [JSONValue] = results.map { error in
            guard let error else { return .object([]) }
            return .object([("error", .string(Self.code(error)))])
        }
        var response = Self.ok(.object([("results", .array(rendered))]))
        // Each token's error is a refusal of its own (the answer is 200 whatever they say).
        response.refusals = zip(tokens, results).compactMap { token, error in
            error.map { Refusal(api: "iid", project: project, status: 200, code: Self.code($0), target: token, detail: $0.message) }
        }
        return response
    }

    /// A whole call refused: the subscription quota (`quotas=fcm`) as 429 with IID's own error
    /// string and the delay, which firebase-admin-node maps to `topics-subscription-rate-exceeded`
    /// (`TOPIC_MGT_SERVER_TO_CLIENT_CODE`, src/utils/error.ts); anything else as an unknown project.
    private static func failure(_ error: FCMError) -> HTTPResponse {
        guard error.isRateRefusal else { return Self.error(404, "Requested entity was not found.") }
        var response = Self.error(429, "RESOURCE_EXHAUSTED")
        if let seconds = error.retryAfterSeconds { response.headers.append(("Retry-After", String(seconds))) }
        return response
    }

    /// Per-token error strings (https://developers.google.com/instance-id/reference/server).
    static func code(_ error: FCMError) -> String {
        switch error.code {
        case .notFound, .unregistered: return "NOT_FOUND"
        case .tooManyTopics: return "TOO_MANY_TOPICS"
        case .invalidArgument, .invalidRegistration, .senderIdMismatch: return "INVALID_ARGUMENT"
        case .deviceMessageRateExceeded, .topicsMessageRateExceeded: return "RESOURCE_EXHAUSTED"
        default: return "INTERNAL"
        }
    }

    private func info(_ request: HTTPRequest, token: String) -> HTTPResponse {
        let project: String?
        switch sender(request, tokens: [token]) {
        case .failure(let failure): return Self.error(failure.status, failure.iidText)
        case .success(let p): project = p
        }
        guard let device = emulator.device(token: token) else {
            return IdentifierShape.isWellFormedToken(token)
                ? Self.error(404, "No information found about this instance id.") : Self.error(400, "InvalidToken")
        }
        guard let owner = try? emulator.project(project ?? device.projectId), device.senders.contains(owner.number) else {
            return Self.error(403, "PermissionDenied")
        }
        let platform: String
        switch device.platform {
        case .android: platform = "ANDROID"
        case .ios: platform = "IOS"
        case .web: platform = "CHROME"
        }
        var fields: [(String, JSONValue)] = [
            ("application", .string(device.appId)), ("authorizedEntity", .string(owner.number)),
            ("platform", .string(platform)), ("scope", .string("*")),
        ]
        if request.queryValue("details") == "true", !device.topics.isEmpty,
            let dates = try? emulator.subscriptionDates(String(device.id), projectId: device.projectId)
        {
            let topics = dates.map { ($0.topic, JSONValue.object([("addDate", .string($0.since.date))])) }
            fields.append(("rel", .object([("topics", .object(topics))])))
        }
        return Self.ok(.object(fields))
    }

    private func relate(_ request: HTTPRequest, token: String, topic: String) -> HTTPResponse {
        let project: String?
        switch sender(request, tokens: [token]) {
        case .failure(let failure): return Self.error(failure.status, failure.iidText)
        case .success(let p): project = p
        }
        guard let topic = ManagedTopicName.bare(topic) else { return Self.error(400, "Topic name format is invalid") }
        let results: [FCMError?]
        do {
            results = try emulator.manageTopic(topic, tokens: [token], subscribe: true, senderProjectId: project)
        } catch {
            return Self.failure(error)
        }
        guard let result = results.first else { return Self.error(404, "Requested entity was not found.") }
        if let error = result {
            let code = Self.code(error)
            return Self.error(code == "NOT_FOUND" ? 404 : 400, code)
        }
        return Self.ok(.object([]))
    }
}
