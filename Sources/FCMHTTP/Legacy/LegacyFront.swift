// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat

/// The legacy HTTP API: `POST /fcm/send` (and `/gcm/send`), JSON and plain text
/// (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/legacy.md).
/// Messages go into the same engine as v1 ones; only the request and response shapes differ.
struct LegacyFront: Sendable {
    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        for path in ["/fcm/send", "/gcm/send"] {
            router.add("POST", path) { request, _ in send(request) }
        }
    }

    static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        allowed.isEmpty ? EmulatorRoutes.notFoundPage(request) : LegacyPages.methodNotAllowed(request.method)
    }

    func send(_ request: HTTPRequest) -> HTTPResponse {
        // Read once, answered only after the credentials: FCM refuses a bad key before a bad body.
        let plainText = request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let form = plainText ? Swift.Result { () throws(LegacyFormReader.Refusal) in try LegacyFormReader.read(request.body) } : nil
        let json = plainText ? nil : Swift.Result { () throws(LegacyBadRequest) in try LegacyJSONReader.read(request.body) }
        let sender: String?
        switch auth.authenticateLegacy(request, concerns: { projects(of: (try? form?.get()) ?? (try? json?.get())) }) {
        case .failure(let failure): return failure.legacyPage
        case .success(let project): sender = project
        }
        if let form {
            switch form {
            case .success(let parsed):
                let outcome = sendToTokens(parsed, sender: sender)
                var response = plainTextResponse(outcome.results.first ?? .failure("InternalServerError"))
                response.refusals = Array(outcome.refusals.prefix(1))
                return response
            case .failure(let refusal):
                var response = plainTextResponse(.failure(refusal.error))
                response.refusals = [Refusal(api: "legacy", project: sender, status: 200, code: refusal.error, detail: refusal.error)]
                return response
            }
        }
        let parsed: LegacyRequest
        switch json {
        case .success(let request): parsed = request
        case .failure(let error): return HTTPResponse(status: 400, contentType: "text/plain; charset=UTF-8", body: error.text + "\n")
        case nil: return plainTextResponse(.failure("InternalServerError"))
        }
        switch parsed.recipients {
        case .tokens(let tokens, let multicast):
            // A single `to` token that names a device group is a group send.
            if !multicast, let token = tokens.first, let group = groupSend(key: token, request: parsed, sender: sender) { return group }
            let outcome = sendToTokens(parsed, sender: sender)
            var response = Self.json(
                .object([
                    ("multicast_id", .number(String(emulator.randomInt64()))), ("success", .int(outcome.success)),
                    ("failure", .int(outcome.failure)), ("canonical_ids", .int(outcome.canonical)),
                    ("results", .array(outcome.results.map(\.json))),
                ]))
            response.refusals = outcome.refusals
            return response
        case .topic(let name):
            return sendToTopics(.topic(name), request: parsed, sender: sender)
        case .condition(let condition):
            return sendToTopics(.condition(condition), request: parsed, sender: sender)
        case .notificationKey(let key):
            return groupSend(key: key, request: parsed, sender: sender)
                ?? Self.json(.object([("success", .int(0)), ("failure", .int(0))]))
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
    private func sendToTopics(_ target: MessageTarget, request: LegacyRequest, sender: String?) -> HTTPResponse {
        let project = sender ?? DemoProject.id
        do {
            let outcome = try emulator.send(
                SendRequest(target: target, content: request.content, validateOnly: request.dryRun, api: .legacy), from: project)
            let id: JSONValue = Int64(outcome.messageId).map { .int($0) } ?? .string(outcome.messageId)
            return Self.json(.object([("message_id", id)]))
        } catch {
            return Self.refused(error, project: project, target: target.description)
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

    private func sendToTokens(
        _ request: LegacyRequest, sender: String?
    ) -> (results: [Result], success: Int, failure: Int, canonical: Int, refusals: [Refusal]) {
        var results: [Result] = []
        var refusals: [Refusal] = []
        for token in request.tokensOrEmpty {
            guard !token.isEmpty else {
                results.append(.failure("MissingRegistration"))
                refusals.append(
                    Refusal(api: "legacy", project: sender, status: 200, code: "MissingRegistration", detail: "The registration token is empty"))
                continue
            }
            // Lax senders act as the token's own project.
            let project = sender ?? emulator.device(token: token)?.projectId ?? DemoProject.id
            do {
                let outcome = try emulator.send(
                    SendRequest(target: .token(token), content: request.content, validateOnly: request.dryRun, api: .legacy), from: project)
                results.append(.success(messageId: outcome.messageId, canonical: outcome.canonicalToken))
            } catch {
                results.append(.failure(Self.errorName(error)))
                refusals.append(Self.refusal(error, project: project, target: token))
            }
        }
        let success = results.filter { if case .success = $0 { return true } else { return false } }.count
        let canonical = results.filter { if case .success(_, let c) = $0 { return c != nil } else { return false } }.count
        return (results, success, results.count - success, canonical, refusals)
    }

    private func groupSend(key: String, request: LegacyRequest, sender: String?) -> HTTPResponse? {
        let project = sender ?? DemoProject.id
        guard emulator.isDeviceGroup(key, projectIdOrNumber: project) else { return nil }
        do {
            let outcome = try emulator.send(
                SendRequest(target: .notificationKey(key), content: request.content, validateOnly: request.dryRun, api: .legacy),
                from: project)
            return Self.json(
                .object(omittingNils: [
                    ("success", .int(outcome.groupSuccess)), ("failure", .int(outcome.groupFailedTokens.count)),
                    (
                        "failed_registration_ids",
                        outcome.groupFailedTokens.isEmpty ? nil : .array(outcome.groupFailedTokens.map(JSONValue.string))
                    ),
                ]))
        } catch {
            return Self.refused(error, project: project, target: key)
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
