// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// An error of the v1 API as FCM writes it: the `google.rpc.Status` envelope with canonical status
/// names only, an `FcmError` detail where FCM sends one, and `Retry-After` where it applies
/// (https://cloud.google.com/apis/design/errors, https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode).
/// Every SDK builds its exception class from these bytes.
struct V1Error: RouteError, Sendable {
    enum Detail: Sendable {
        case fcmError(String)
        case badRequest(field: String, description: String)
        case quotaFailure(subject: String, description: String)
        /// `google.firebase.fcm.v1.ApnsError`: what APNs answered an iOS delivery
        /// (https://firebase.google.com/docs/reference/fcm/rest/v1/ApnsError).
        case apnsError(statusCode: Int, reason: String)
        /// `google.rpc.ErrorInfo`: why, in Google's machine-readable terms (V1Error+Quota).
        case errorInfo(reason: String, domain: String, metadata: [(String, String)])
        /// `google.rpc.LocalizedMessage`: the message in the caller's language.
        case localizedMessage(locale: String, message: String)
        /// `google.rpc.Help`: a link that explains or fixes the error.
        case help(description: String, url: String)
    }

    let status: Int
    let statusName: String
    let message: String
    var details: [Detail]
    var retryAfterSeconds: Int?
    /// The token, topic or condition the refused request named, for its `refused` event.
    var target: String?

    /// What Google's JSON transcoder refuses, worded as it words it: 400 with a `BadRequest`
    /// naming the field path (`message.data[0].value`).
    static func transcoder(field: String, message: String) -> V1Error {
        V1Error(status: 400, statusName: "INVALID_ARGUMENT", message: message, details: [.badRequest(field: field, description: message)])
    }

    init(status: Int, statusName: String, message: String, details: [Detail], retryAfterSeconds: Int? = nil) {
        self.status = status
        self.statusName = statusName
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    static func invalidArgument(_ message: String = "Request contains an invalid argument.", field: String? = nil) -> V1Error {
        var details: [Detail] = [.fcmError("INVALID_ARGUMENT")]
        if let field { details.append(.badRequest(field: field, description: message)) }
        return V1Error(status: 400, statusName: "INVALID_ARGUMENT", message: message, details: details)
    }

    /// A route read a parameter its pattern does not capture: the emulator's mistake, not the client's.
    static let routeMismatch = V1Error(FCMError(.internalError, "The route captures no such parameter"))

    /// The core's error as FCM writes it, with what APNs answered beside `FcmError` when the error
    /// is an iOS delivery's (proto3 JSON names the fields `statusCode` and `reason`).
    init(_ error: FCMError) {
        self.init(core: error)
        if let apns = error.apnsError { details.append(.apnsError(statusCode: apns.statusCode, reason: apns.reason)) }
    }

    /// The body bytes FCM answers with for each core error (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode,
    /// with the messages captured from the service).
    private init(core error: FCMError) {
        switch error.code {
        case .invalidRegistration:
            self = .invalidArgument("The registration token is not a valid FCM registration token")
        case .unregistered:
            self.init(
                status: 404, statusName: "NOT_FOUND", message: "Requested entity was not found.", details: [.fcmError("UNREGISTERED")])
        case .senderIdMismatch:
            self.init(
                status: 403, statusName: "PERMISSION_DENIED", message: "SenderId mismatch", details: [.fcmError("SENDER_ID_MISMATCH")])
        case .messageTooBig:
            // Captured from FCM: no details at all.
            self.init(status: 400, statusName: "INVALID_ARGUMENT", message: "Request contains an invalid argument.", details: [])
        case .invalidDataKey:
            // INVALID_ARGUMENT comes with a google.rpc.BadRequest (the ErrorCode reference).
            self = .invalidArgument(error.message, field: error.field)
        case .invalidTTL, .invalidPackageName, .invalidArgument, .tooManyTopics:
            self = .invalidArgument(field: error.field)
        case .deviceMessageRateExceeded, .topicsMessageRateExceeded:
            if let quota = V1Error.projectQuota(error) {
                self = quota
                return
            }
            let subject = error.code == .deviceMessageRateExceeded ? "device" : "topic"
            self.init(
                status: 429, statusName: "RESOURCE_EXHAUSTED",
                message: "Quota exceeded for quota metric 'Messages per \(subject)' of service 'fcm.googleapis.com'.",
                details: [.fcmError("QUOTA_EXCEEDED"), .quotaFailure(subject: subject, description: error.message)],
                // Only when the rule or the rate window names one: urllib3 sleeps a 429's full
                // Retry-After (urllib3 `Retry.respect_retry_after_status`), so a made-up default stalls Python clients.
                retryAfterSeconds: error.retryAfterSeconds.map { Int($0) }
            )
        case .unavailable:
            self.init(
                status: 503, statusName: "UNAVAILABLE", message: "The service is currently unavailable.",
                details: [.fcmError("UNAVAILABLE")],
                retryAfterSeconds: error.retryAfterSeconds.map { Int($0) }
            )
        case .thirdPartyAuthError:
            self.init(
                status: 401, statusName: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                details: [.fcmError("THIRD_PARTY_AUTH_ERROR")]
            )
        case .internalError:
            self.init(status: 500, statusName: "INTERNAL", message: "Internal error encountered.", details: [.fcmError("INTERNAL")])
        case .notFound:
            self.init(status: 404, statusName: "NOT_FOUND", message: "Requested entity was not found.", details: [])
        case .conflict:
            self.init(status: 409, statusName: "ALREADY_EXISTS", message: error.message, details: [])
        }
    }

    var body: JSONValue {
        let rendered: [JSONValue] = details.map { detail in
            switch detail {
            case .fcmError(let code):
                return .object([("@type", .string("type.googleapis.com/google.firebase.fcm.v1.FcmError")), ("errorCode", .string(code))])
            case .badRequest(let field, let description):
                return .object([
                    ("@type", .string("type.googleapis.com/google.rpc.BadRequest")),
                    ("fieldViolations", .array([.object([("field", .string(field)), ("description", .string(description))])])),
                ])
            case .apnsError(let statusCode, let reason):
                return .object([
                    ("@type", .string("type.googleapis.com/google.firebase.fcm.v1.ApnsError")), ("statusCode", .int(statusCode)),
                    ("reason", .string(reason)),
                ])
            case .quotaFailure(let subject, let description):
                return .object([
                    ("@type", .string("type.googleapis.com/google.rpc.QuotaFailure")),
                    ("violations", .array([.object([("subject", .string(subject)), ("description", .string(description))])])),
                ])
            case .errorInfo(let reason, let domain, let metadata):
                return .object([
                    ("@type", .string("type.googleapis.com/google.rpc.ErrorInfo")), ("reason", .string(reason)),
                    ("domain", .string(domain)), ("metadata", .object(metadata.map { ($0.0, .string($0.1)) })),
                ])
            case .localizedMessage(let locale, let message):
                return .object([
                    ("@type", .string("type.googleapis.com/google.rpc.LocalizedMessage")), ("locale", .string(locale)),
                    ("message", .string(message)),
                ])
            case .help(let description, let url):
                return .object([
                    ("@type", .string("type.googleapis.com/google.rpc.Help")),
                    ("links", .array([.object([("description", .string(description)), ("url", .string(url))])])),
                ])
            }
        }
        var fields: [(String, JSONValue)] = [("code", .int(status)), ("message", .string(message)), ("status", .string(statusName))]
        if !rendered.isEmpty { fields.append(("details", .array(rendered))) }
        return .object([("error", .object(fields))])
    }

    var response: HTTPResponse {
        var response = V1Response.json(status: status, body)
        if let retryAfterSeconds { response.headers.append(("Retry-After", String(retryAfterSeconds))) }
        response.refusals = [refusal]
        return response
    }
}

/// How v1 writes JSON: pretty, with the headers FCM sends.
enum V1Response {
    static let headers: [(String, String)] = [
        ("Content-Type", "application/json; charset=UTF-8"), ("Vary", "Origin"), ("Vary", "X-Origin"), ("Vary", "Referer"),
    ]

    static func json(status: Int = 200, _ body: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array((body.encoded(.pretty) + "\n").utf8))
    }

    /// A send's answer, `{"name": "projects/{project}/messages/{id}"}`, with the bytes `json`
    /// gives it, written straight: joining the name and encoding a document of it was a
    /// twentieth of a send. `{project}` is echoed as given: id or number (docs/http-v1.md).
    static func sent(project: String, messageId: String) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(40 + project.utf8.count + messageId.utf8.count)
        body.append(contentsOf: "{\n  \"name\": \"projects/".utf8)
        JSONValue.writeEscaped(project, into: &body)
        body.append(contentsOf: "/messages/".utf8)
        JSONValue.writeEscaped(messageId, into: &body)
        body.append(contentsOf: "\"\n}\n".utf8)
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}
