// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat
import FCMTransport

/// The legacy HTTP API: `POST /fcm/send` (and `/gcm/send`), JSON and plain text
/// (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/legacy.md).
/// Messages go into the same engine as v1 ones; only the request and response shapes differ.
struct LegacyFront: Sendable {
    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        router.mount(.legacy, ["/fcm/*", "/gcm/*"], dialect: Self.dialect)
        for path in ["/fcm/send", "/gcm/send"] {
            router.add("POST", path) { request, _ in send(request) }
        }
    }

    static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        allowed.isEmpty ? GoogleFrontEnd.notFound(request) : LegacyPages.methodNotAllowed(request.method)
    }

    /// The legacy endpoints' HTML pages (device groups share them).
    static let dialect = Dialect(
        notFound: fallback, tooLarge: { _ in LegacyPages.tooLarge() }, refused: GoogleFrontEnd.refused,
        injected: { status in
            let phrase = HTTPResponse.reasonPhrase(status)
            return GoogleFrontEnd.page(status, phrase, "<H1>\(phrase)</H1>\n<H2>Error \(status)</H2>")
        })

    func send(_ request: HTTPRequest) -> HTTPResponse {
        // Read once, answered only after the credentials: FCM refuses a bad key before a bad body.
        let plainText = request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let form = plainText ? Swift.Result { () throws(LegacyFormReader.Refusal) in try LegacyFormReader.read(request.body) } : nil
        let json = plainText ? nil : Swift.Result { () throws(LegacyBadRequest) in try LegacyJSONReader.read(request.body) }
        let sender: Sender
        switch auth.legacySender(request, concerns: { projects(of: (try? form?.get()) ?? (try? json?.get())) }) {
        case .failure(let failure): return failure.legacyPage
        case .success(let named): sender = named
        }
        let body: LegacyRequest? = plainText ? try? form?.get() : try? json?.get()
        guard let parsed = body else {
            // A body that did not parse is answered once the credentials are settled: a server key
            // is then looked up on its own.
            switch auth.resolve(sender) {
            case .failure(let failure): return failure.legacyPage
            case .success(let senderId): return badBody(form: form, json: json, sender: senderId)
            }
        }
        // The web table's HTTPS rule, for a send that reaches a web app (LegacyPayload.webURLRefusal).
        if let refusal = parsed.webRefusal(isWeb: { emulator.device(token: $0)?.platform == .web }) {
            return HTTPResponse(status: 400, contentType: "text/plain; charset=UTF-8", body: refusal.text + "\n")
        }
        // A repeat of these bytes by the same sender is marked as a retry (docs/simulation.md).
        let fingerprint = SendFingerprint.of(project: request.header("Authorization") ?? "", body: request.body)
        func make(_ target: MessageTarget, _ lookup: SendRequest.GroupLookup) -> SendRequest {
            var send = SendRequest(target: target, content: parsed.content, validateOnly: parsed.dryRun, api: .legacy, groupLookup: lookup)
            send.fingerprint = fingerprint
            send.notice = parsed.notice
            return send
        }
        if plainText {
            // Plain text: only the first result is answered.
            let tokens = parsed.tokensOrEmpty
            guard let answer = send(tokens.compactMap { $0.isEmpty ? nil : make(.token($0), .none) }, as: sender) else {
                return AuthFailure.unauthenticated.legacyPage
            }
            let outcome = tokenResults(tokens, answer, sender: sender)
            var response = plainTextResponse(outcome.results.first ?? .failure("InternalServerError"))
            response.refusals = Array(outcome.refusals.prefix(1))
            return response
        }
        switch parsed.recipients {
        case .tokens(let tokens, let multicast):
            // A single `to` that names one of the sender's device groups is a group send.
            let lookup: SendRequest.GroupLookup = multicast ? .none : .tokenOrGroup
            let requests = tokens.compactMap { $0.isEmpty ? nil : make(.token($0), lookup) }
            guard let answer = send(requests, as: sender, multicastId: true) else { return AuthFailure.unauthenticated.legacyPage }
            if let item = answer.items.first, item.toGroup, let key = tokens.first { return groupAnswer(item, key: key) }
            let outcome = tokenResults(tokens, answer, sender: sender)
            var response = Self.json(
                .object([
                    ("multicast_id", .number(String(answer.multicastId ?? 0))), ("success", .int(outcome.success)),
                    ("failure", .int(outcome.failure)), ("canonical_ids", .int(outcome.canonical)),
                    ("results", .array(outcome.results.map(\.json))),
                ]))
            response.refusals = outcome.refusals
            return response
        case .topic(let name):
            return sendToTopics(make(.topic(name), .none), sender: sender)
        case .condition(let condition):
            return sendToTopics(make(.condition(condition), .none), sender: sender)
        case .notificationKey(let key):
            guard let answer = send([make(.notificationKey(key), .groupOrNothing)], as: sender) else {
                return AuthFailure.unauthenticated.legacyPage
            }
            guard let item = answer.items.first else { return plainTextResponse(.failure("InternalServerError")) }
            return groupAnswer(item, key: key)
        }
    }

    /// A body that did not parse: the form's refusal as plain text, or the JSON reader's 400.
    private func badBody(
        form: Swift.Result<LegacyRequest, LegacyFormReader.Refusal>?, json: Swift.Result<LegacyRequest, LegacyBadRequest>?, sender: String?
    ) -> HTTPResponse {
        if case .failure(let refusal) = form {
            var response = plainTextResponse(.failure(refusal.error))
            response.refusals = [Refusal(api: "legacy", project: sender, status: 200, code: refusal.error, detail: refusal.error)]
            return response
        }
        if case .failure(let error) = json {
            return HTTPResponse(status: 400, contentType: "text/plain; charset=UTF-8", body: error.text + "\n")
        }
        return plainTextResponse(.failure("InternalServerError"))
    }

    /// Sends `requests` as `sender` in one world call, where a server key is looked up and weighed
    /// too; nil when the key is refused there (nothing was sent).
    private func send(_ requests: [SendRequest], as sender: Sender, multicastId: Bool = false) -> SendAnswer? {
        emulator.send(requests, from: sender, multicastId: multicastId) { found in
            guard case .serverKey = sender else { return true }
            return auth.admitsLegacy(found?.id)
        }
    }

    /// The projects a request is about, for credentials that only demo projects accept: each
    /// known token's project; nil for the default project (topics, conditions, groups, unknown
    /// tokens' senders).
    private func projects(of request: LegacyRequest?) -> [String?] {
        guard let request else { return [] }
        switch request.recipients {
        case .tokens(let tokens, _): return tokens.map { emulator.device(token: $0)?.projectId }
        case .topic, .condition, .notificationKey: return [nil]
        }
    }

    /// A topic or condition send: one `message_id`, or one error (the legacy reference's topic response).
    private func sendToTopics(_ request: SendRequest, sender: Sender) -> HTTPResponse {
        guard let answer = send([request], as: sender) else { return AuthFailure.unauthenticated.legacyPage }
        guard let item = answer.items.first, let result = item.result else { return plainTextResponse(.failure("InternalServerError")) }
        switch result {
        case .success(let outcome):
            let id: JSONValue = Int64(outcome.messageId).map { .int($0) } ?? .string(outcome.messageId)
            return Self.json(.object([("message_id", id)]))
        case .failure(let error):
            return Self.refused(error, project: item.projectId, target: request.target.description)
        }
    }

    // MARK: - Per-recipient sends

    enum Result {
        case success(messageId: String, canonical: String?)
        case failure(String)

        var json: JSONValue {
            switch self {
            case .success(let id, let canonical):
                return .object(omittingNils: [("message_id", .string(id)), ("registration_id", canonical.map(JSONValue.string))])
            case .failure(let name): return .object([("error", .string(name))])
            }
        }
    }

    /// One result per token, in order: an empty token is `MissingRegistration` (it was not sent),
    /// the others take the answer's items in turn.
    private func tokenResults(
        _ tokens: [String], _ answer: SendAnswer, sender: Sender
    ) -> (results: [Result], success: Int, failure: Int, canonical: Int, refusals: [Refusal]) {
        let senderId: String? =
            switch sender {
            case .project(let project): project
            case .serverKey: answer.senderId
            case .tokenOwner: nil
            }
        var items = answer.items.makeIterator()
        var results: [Result] = []
        var refusals: [Refusal] = []
        for token in tokens {
            guard !token.isEmpty else {
                results.append(.failure("MissingRegistration"))
                refusals.append(
                    Refusal(
                        api: "legacy", project: senderId, status: 200, code: "MissingRegistration",
                        detail: "The registration token is empty"))
                continue
            }
            guard let item = items.next(), let result = item.result else {
                results.append(.failure("InternalServerError"))
                continue
            }
            switch result {
            case .success(let outcome): results.append(.success(messageId: outcome.messageId, canonical: outcome.canonicalToken))
            case .failure(let error):
                results.append(.failure(Self.errorName(error)))
                refusals.append(Self.refusal(error, project: item.projectId, target: token))
            }
        }
        let success = results.filter { if case .success = $0 { return true } else { return false } }.count
        let canonical = results.filter { if case .success(_, let c) = $0 { return c != nil } else { return false } }.count
        return (results, success, results.count - success, canonical, refusals)
    }

    /// A device group send's answer: how many members took it and which tokens failed, or one error.
    private func groupAnswer(_ item: SendAnswer.Item, key: String) -> HTTPResponse {
        switch item.result {
        case .success(let outcome)?:
            return Self.json(
                .object(omittingNils: [
                    ("success", .int(outcome.groupSuccess)), ("failure", .int(outcome.groupFailedTokens.count)),
                    (
                        "failed_registration_ids",
                        outcome.groupFailedTokens.isEmpty ? nil : .array(outcome.groupFailedTokens.map(JSONValue.string))
                    ),
                ]))
        case .failure(let error)?:
            return Self.refused(error, project: item.projectId, target: key)
        case nil:
            return Self.json(.object([("success", .int(0)), ("failure", .int(0))]))
        }
    }

    /// A topic, condition or group send refused: `{"error": "<name>"}`, noted for the event log.
    private static func refused(_ error: FCMError, project: String, target: String) -> HTTPResponse {
        var response = json(.object([("error", .string(errorName(error)))]))
        response.refusals = [refusal(error, project: project, target: target)]
        return response
    }

    /// A per-result error as a refusal: the client reads only the name (200 `results[i].error`),
    /// so the reason in words is the emulator's own.
    static func refusal(_ error: FCMError, project: String, target: String) -> Refusal {
        Refusal(api: "legacy", project: project, status: 200, code: errorName(error), target: target, detail: error.message)
    }

    /// The legacy reference's per-result error names (table 9).
    static func errorName(_ error: FCMError) -> String {
        switch error.code {
        case .invalidRegistration, .invalidArgument: return "InvalidRegistration"
        case .unregistered, .notFound: return "NotRegistered"
        case .senderIdMismatch: return "MismatchSenderId"
        case .invalidPackageName: return "InvalidPackageName"
        case .messageTooBig: return "MessageTooBig"
        case .invalidDataKey: return "InvalidDataKey"
        case .invalidTTL: return "InvalidTtl"
        case .deviceMessageRateExceeded: return "DeviceMessageRateExceeded"
        case .topicsMessageRateExceeded: return "TopicsMessageRateExceeded"
        case .unavailable: return "Unavailable"
        case .thirdPartyAuthError: return "InvalidApnsCredential"
        case .internalError, .conflict, .tooManyTopics: return "InternalServerError"
        }
    }

    private func plainTextResponse(_ result: Result) -> HTTPResponse {
        let body: String
        switch result {
        case .success(let id, let canonical): body = "id=\(id)\n" + (canonical.map { "registration_id=\($0)\n" } ?? "")
        case .failure(let name): body = "Error=\(name)\n"
        }
        return HTTPResponse(status: 200, contentType: "text/plain; charset=UTF-8", body: body)
    }

    static func json(_ body: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json; charset=UTF-8", body: body.encoded())
    }
}
