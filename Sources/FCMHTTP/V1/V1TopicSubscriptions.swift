// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// The v1 topic-subscription API that current Admin SDKs call instead of IID (firebase-admin
/// python 7.x `subscribe_to_topic`):
///
///     POST   /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name={topic}   body {}
///     DELETE /v1/projects/{p}/registrations/{token}/topicSubscriptions/{topic}?allow_missing=true
///
/// Not in Google's public reference. What the SDK parses is known (any 2xx is success; on subscribe a 409 or an
/// `ALREADY_EXISTS` status is success too; errors are read from `FcmError.errorCode`, then
/// `status`); the success bodies are the emulator's choice: the subscription resource by name.
struct V1TopicSubscriptions: Sendable {
    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        let base = "/v1/projects/{project}/registrations/{token}/topicSubscriptions"
        router.add("POST", base, api: .v1Topics) { request, params in
            guard let project = params["project"], let token = params["token"] else { return V1Error.routeMismatch.response }
            return subscribe(request, project: project, token: token)
        }
        router.add("DELETE", base + "/{topic}", api: .v1Topics) { request, params in
            guard let project = params["project"], let token = params["token"], let topic = params["topic"] else {
                return V1Error.routeMismatch.response
            }
            return unsubscribe(request, project: project, token: token, topic: topic)
        }
    }

    private func subscribe(_ request: HTTPRequest, project: String, token: String) -> HTTPResponse {
        if let failure = auth.authenticateV1(request, project: project) { return failure.v1.response }
        guard let topic = request.queryValue("topic_name") ?? request.queryValue("topicName") else {
            return Self.plain(V1Error.invalidArgument("topic_name is required.", field: "topic_name"))
        }
        return manage(project: project, token: token, topic: topic, subscribe: true)
    }

    private func unsubscribe(_ request: HTTPRequest, project: String, token: String, topic: String) -> HTTPResponse {
        if let failure = auth.authenticateV1(request, project: project) { return failure.v1.response }
        let allowMissing = request.queryValue("allow_missing") == "true" || request.queryValue("allowMissing") == "true"
        if !allowMissing, let device = emulator.device(token: token), !device.topics.contains(ManagedTopicName.bare(topic) ?? topic) {
            return V1Error(status: 404, statusName: "NOT_FOUND", message: "Requested entity was not found.", details: []).response
        }
        return manage(project: project, token: token, topic: topic, subscribe: false)
    }

    private func manage(project: String, token: String, topic: String, subscribe: Bool) -> HTTPResponse {
        guard let topic = ManagedTopicName.bare(topic) else { return Self.plain(V1Error.invalidArgument(field: "topic_name")) }
        let result: FCMError?
        do {
            result = try emulator.manageTopic(topic, tokens: [token], subscribe: subscribe, senderProjectId: project).first ?? nil
        } catch {
            return Self.plain(V1Error(error))
        }
        if let error = result { return Self.plain(Self.error(error)) }
        let name = "projects/\(project)/registrations/\(token)/topicSubscriptions/\(topic)"
        return V1Response.json(subscribe ? .object([("name", .string(name))]) : .object([]))
    }

    /// This API's errors carry the canonical status alone: a client reading it the way Node reads
    /// topic management (`FcmError.errorCode` first, then `status`) would map `UNREGISTERED` to
    /// `unknown-error`, while a plain `NOT_FOUND` or `INVALID_ARGUMENT` maps to its own class.
    private static func plain(_ error: V1Error) -> HTTPResponse {
        let details = error.details.filter { if case .fcmError = $0 { false } else { true } }
        return V1Error(
            status: error.status, statusName: error.statusName, message: error.message, details: details,
            retryAfterSeconds: error.retryAfterSeconds
        ).response
    }

    /// Per-token failures as status and message (`plain` drops the `FcmError` detail).
    private static func error(_ error: FCMError) -> V1Error {
        switch error.code {
        case .notFound, .unregistered: return V1Error(.unregistered)
        case .tooManyTopics:
            return V1Error(status: 400, statusName: "INVALID_ARGUMENT", message: error.message, details: [.fcmError("INVALID_ARGUMENT")])
        case .senderIdMismatch: return V1Error(error)
        default: return V1Error.invalidArgument("The registration token is not a valid FCM registration token")
        }
    }
}

extension V1Error {
    init(_ code: FCMError.Code) { self.init(FCMError(code, "")) }
}
