// SPDX-License-Identifier: Apache-2.0

/// Something that happened in the simulated world, at a time on the emulator's clock.
/// The delivery log, the control API and scenario expectations all read these.
public struct Event: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case projectCreated, projectDeleted
        case deviceCreated, deviceDeleted
        case stateChanged
        case tokenRefreshed, tokenInvalidated
        case subscribed, unsubscribed
        case groupCreated, groupChanged, groupDeleted
        /// FCM accepted the message (once per send, not per recipient).
        case accepted
        /// Stored for a device that cannot take it now.
        case stored
        /// A stored message was replaced by a newer one with the same collapse key.
        case collapsed
        /// A stored message was evicted to keep to the collapse-key limit.
        case evicted
        /// A stored message reached the end of its TTL.
        case expired
        case delivered
        /// Dropped without delivery; `detail` says why.
        case discarded
        case deletedMessagesSignalled
        case clockAdvanced
        /// A fault rule fired; `detail` names it and what it did.
        case faultInjected
        /// A device sent an upstream message to its app server (XMPP).
        case upstream
        /// A delivery receipt was queued for the app server (XMPP).
        case receiptQueued
        /// The app server acked an upstream message or receipt.
        case ccsAcked
        /// An upstream message or receipt expired before the app server took it.
        case ccsExpired
        /// An upstream message or receipt was dropped unsent: its project's line was full.
        case ccsDropped
        /// A client asked the proxy for a host: `detail` says which, and whether the emulator
        /// answered for it, tunnelled it to the real host, or refused it.
        case proxyConnect
        /// A front refused a request (validation, credentials, quota, fault, unknown token, size):
        /// `call` says which API, project, status and error code the client got; `detail` why.
        case refused
        /// An OAuth access token was issued to a project's service account; `detail` says by which
        /// route (a refresh is a new grant): `jwt-bearer`, `metadata` or `control`.
        case accessTokenGranted
        /// Every access token a project was issued until now was revoked (the control API).
        case accessTokensRevoked
        /// The oldest deliveries of all inboxes were dropped to keep them within
        /// `maxInboxBytes`; `detail` says how many.
        case inboxTrimmed
    }

    package let sequence: Int
    package let time: Instant
    package let kind: Kind
    package let device: DeviceID?
    package let message: Message?
    /// A second message the event concerns (the newer one in `collapsed`).
    package let related: Message?
    /// A short machine-readable reason or value (`ttl-zero`, `offline→foreground`, a topic…).
    package let detail: String?
    /// The API call a `refused` or `faultInjected` event is about.
    package let call: EventCall?

    init(
        sequence: Int, time: Instant, kind: Kind, device: DeviceID?, message: Message?, related: Message?, detail: String?,
        call: EventCall? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.kind = kind
        self.device = device
        self.message = message
        self.related = related
        self.detail = detail
        self.call = call
    }
}

/// Who asked what, for events about a request rather than a device or message. A class, so an
/// event that has none costs one word.
package final class EventCall: Sendable {
    /// The project id (or the id or number the request named, when no such project exists).
    package let project: String?
    /// `v1`, `legacy`, `iid`, `xmpp`, `batch`.
    package let api: String?
    /// The HTTP status the client got; nil on XMPP.
    package let status: Int?
    /// The error code in the API's own words (`INVALID_ARGUMENT`, `InvalidRegistration`, `BAD_REGISTRATION`).
    package let code: String?
    /// The token, topic or condition the request named.
    package let target: String?

    package init(project: String?, api: String?, status: Int? = nil, code: String? = nil, target: String? = nil) {
        self.project = project
        self.api = api
        self.status = status
        self.code = code
        self.target = target
    }

    /// What it adds to the event log's byte count.
    var approximateBytes: Int {
        64 + [project, api, code, target].reduce(0) { $0 + ($1.map(EventLog.stringBytes) ?? 0) }
    }
}

/// A request a front refused, as the client saw it: recorded as a `refused` event and logged.
public struct Refusal: Sendable, Equatable {
    /// Longest `detail` and `target` kept, in UTF-8 bytes: a flood of refusals of huge bodies must
    /// not fill the event log's byte budget with their echoes.
    package static let maxTextBytes = 512

    package var api: String
    package var project: String?
    package var status: Int?
    package var code: String
    package var target: String?
    package var detail: String

    package init(api: String, project: String? = nil, status: Int?, code: String, target: String? = nil, detail: String) {
        self.api = api
        self.project = project
        self.status = status
        self.code = code
        self.target = target
        self.detail = detail
    }

    /// `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, with `…` when cut.
    package static func truncated(_ text: String, maxBytes: Int = maxTextBytes) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var out = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maxBytes - 3 { break }
            out.append(character)
            bytes += size
        }
        return out + "…"
    }
}
