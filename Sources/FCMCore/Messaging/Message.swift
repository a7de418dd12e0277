// SPDX-License-Identifier: Apache-2.0

/// Who a message is for (docs/simulation.md, "Targets";
/// https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages).
package enum MessageTarget: Sendable, Equatable {
    case token(String)
    case fid(String)
    case topic(String)
    case condition(TopicCondition)
    case notificationKey(String)

    /// The target as the legacy `to` field writes it.
    package var description: String {
        switch self {
        case .token(let t): return t
        case .fid(let f): return "fid:" + f
        case .topic(let t): return "/topics/" + t
        case .condition(let c): return c.text
        case .notificationKey(let k): return k
        }
    }
}

/// Which API accepted a message. Devices cannot tell, but the event log can.
package enum SourceAPI: String, Sendable {
    case v1, legacy, xmpp, control
    /// RFC 8030 publication to a web device's subscription (docs/receivers.md).
    case webpush
}

/// A send as a front hands it to the core.
package struct SendRequest: Sendable {
    package var target: MessageTarget
    package var content: MessageContent
    /// `validate_only` / `dry_run`: run every check, store and deliver nothing.
    package var validateOnly: Bool
    package var api: SourceAPI
    /// Whether the target's key may name one of the sender's device groups, looked up in the
    /// send's own world call so no group comes or goes in between.
    package var groupLookup: GroupLookup
    /// The front's fingerprint of the request this send came in (`SendFingerprint`): a
    /// send that repeats an earlier one is marked (`Message.retry`). Nil: not tracked.
    package var fingerprint: UInt64?
    /// Set by the world when this send repeats an earlier one.
    var retry: RetryMark?
    /// What the front noticed of a request it accepts as the service does, such as a misspelt
    /// legacy parameter it ignored (docs/legacy.md, "Unknown parameters"): the `accepted` event's
    /// detail names it after the API, and the answer on the wire is unchanged.
    package var notice: String?

    /// The `accepted` event's detail: the API, then the front's notice.
    var acceptedDetail: String { notice.map { "\(api.rawValue): \($0)" } ?? api.rawValue }

    /// How a key that may name a device group is read.
    package enum GroupLookup: Sendable {
        /// The target is what it says (v1, the control API, legacy `registration_ids`).
        case none
        /// A token that is one of the sender's group keys goes to the group: the legacy and CCS
        /// `to` take either (https://firebase.google.com/docs/cloud-messaging/android/device-group).
        case tokenOrGroup
        /// A notification key that names none of the sender's groups is not sent at all (the
        /// legacy `notification_key`, which `/fcm/send` then answers with no results).
        case groupOrNothing
    }

    package init(
        target: MessageTarget, content: MessageContent, validateOnly: Bool = false, api: SourceAPI, groupLookup: GroupLookup = .none
    ) {
        self.target = target
        self.content = content
        self.validateOnly = validateOnly
        self.api = api
        self.groupLookup = groupLookup
    }
}

/// A message FCM accepted. Accepted is not delivered (docs/simulation.md, "Device states"): what happens
/// next is in the event log and in each device's inbox. Immutable and shared by every copy.
package final class Message: Sendable {
    package let id: String
    package let projectId: String
    package let senderId: String
    package let target: MessageTarget
    package let content: MessageContent
    package let api: SourceAPI
    package let acceptedAt: Instant
    /// The earlier attempt this send repeats, when it repeats one (`RetryLedger`).
    package let retry: RetryMark?
    /// What the message costs where it is kept (`EventLog.approximateBytes`): measured once, as
    /// the event log and every inbox that keeps it count it.
    let approximateBytes: Int

    init(
        id: String, projectId: String, senderId: String, target: MessageTarget, content: MessageContent, api: SourceAPI, acceptedAt: Instant,
        retry: RetryMark? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.senderId = senderId
        self.target = target
        self.content = content
        self.api = api
        self.acceptedAt = acceptedAt
        self.retry = retry
        approximateBytes = EventLog.approximateBytes(id: id, projectId: projectId, senderId: senderId, content: content)
    }

    /// `from` as the app sees it: `/topics/<name>` for topic messages, the sender id otherwise.
    package var from: String {
        if case .topic(let name) = target { return "/topics/" + name }
        return senderId
    }

    /// The topic name for topic messages.
    package var topic: String? {
        if case .topic(let name) = target { return name }
        return nil
    }
}

/// What a send produced.
public struct SendOutcome: Sendable {
    /// The accepted message (`nil` for `validateOnly`).
    package let message: Message?
    /// The id to answer with (`fake_message_id` semantics are the front's business).
    package let messageId: String
    /// For token targets: the token's canonical replacement after a refresh, if any.
    package let canonicalToken: String?
    /// For device groups: how many members took the message, and the tokens that failed.
    package let groupSuccess: Int
    package let groupFailedTokens: [String]
}
