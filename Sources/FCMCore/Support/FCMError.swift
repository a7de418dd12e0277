// SPDX-License-Identifier: Apache-2.0

/// The one error model of the core. Each front maps `code` to its own dialect: v1 `google.rpc.Status`
/// with an `FcmError` detail, legacy strings, XMPP nack codes, control-API JSON (Sources/README.md).
public struct FCMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the service's terms.
    public enum Code: String, Sendable, CaseIterable {
        /// A request field is missing, malformed or out of range (`field` names it).
        case invalidArgument
        /// A token that is not an FCM registration token at all.
        case invalidRegistration
        /// A token that was valid once but is no longer: uninstalled, refreshed or deleted.
        case unregistered
        /// The token belongs to a sender other than the one authenticated.
        case senderIdMismatch
        /// `restricted_package_name` differs from the app's id.
        case invalidPackageName
        /// The payload is over 4096 bytes (2048 to a topic).
        case messageTooBig
        /// A data key that is reserved (`from`, `message_type`, `google…`, `gcm…`).
        case invalidDataKey
        /// TTL outside 0…2,419,200 s.
        case invalidTTL
        /// Per-device rate limit hit.
        case deviceMessageRateExceeded
        /// Per-topic rate limit hit.
        case topicsMessageRateExceeded
        /// The instance is subscribed to the maximum number of topics.
        case tooManyTopics
        /// The APNs certificate or web-push key of the app is invalid (fault injection).
        case thirdPartyAuthError
        /// The service is unavailable (fault injection or configured outage).
        case unavailable
        /// An internal error (fault injection).
        case internalError
        /// A project, device, group or other resource of the emulator does not exist.
        case notFound
        /// The resource exists already, or the request conflicts with its state.
        case conflict
    }

    /// A finer cause within a code, where a dialect words the causes differently
    /// (the device-group errors: docs/legacy.md, "Device groups").
    package enum Reason: Sendable, Equatable {
        case groupNameMismatch
        case groupMemberLimit
        /// The project holds as many device groups as it may.
        case groupLimit
        /// An invalid registration of an iOS instance: no valid APNs token or app id (XMPP nacks it
        /// INVALID_JSON: the error table of https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref).
        case apnsRegistration
        /// The third-party credentials at fault are the web push certificates, not the APNs key
        /// (XMPP nacks it AUTHENTICATION_FAILED).
        case webPushCredentials
        /// A collection of the emulator is at its cap (`maxProjects`, `maxDevices`,
        /// `maxFaultRules`): the control API answers 429 `RESOURCE_EXHAUSTED`, as Google's APIs
        /// answer a quota (AIP-193).
        case limitReached
        /// FCM's per-project message quota (`quotas=fcm`): `limit` messages a rolling minute.
        case projectQuota(limit: Int, projectNumber: String)
        /// FCM's limit of fan-outs (topic and condition sends) in progress per project.
        case fanOutQuota(limit: Int)
        /// FCM's per-project rate of topic subscription calls: `limit` a second.
        case subscriptionQuota(limit: Int)
    }

    package let code: Code
    package let reason: Reason?
    /// A human-readable explanation, written for the control API and logs.
    package let message: String
    /// The request field at fault, when one is, in dotted form (`message.android.ttl`).
    package let field: String?
    /// When retrying could succeed, in seconds of the emulator's clock (rate limits).
    package var retryAfterSeconds: Int64?
    /// What APNs answered when the failure is an iOS delivery's (v1 relays it as an `ApnsError`).
    package var apnsError: APNsAnswer?

    /// An APNs error answer: its HTTP status and `reason` (Apple's "Handling notification
    /// responses from APNs": 400 `BadDeviceToken`, 403 `InvalidProviderToken`, 410 `Unregistered`).
    package struct APNsAnswer: Sendable, Equatable {
        package let statusCode: Int
        package let reason: String

        package init(statusCode: Int, reason: String) {
            self.statusCode = statusCode
            self.reason = reason
        }

        /// The app was uninstalled: APNs no longer knows the device token for the topic.
        package static let unregistered = APNsAnswer(statusCode: 410, reason: "Unregistered")
        package static let badDeviceToken = APNsAnswer(statusCode: 400, reason: "BadDeviceToken")
        package static let invalidProviderToken = APNsAnswer(statusCode: 403, reason: "InvalidProviderToken")
    }

    package init(_ code: Code, _ message: String, field: String? = nil, reason: Reason? = nil, retryAfterSeconds: Int64? = nil) {
        self.code = code
        self.reason = reason
        self.message = message
        self.field = field
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
