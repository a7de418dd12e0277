// SPDX-License-Identifier: Apache-2.0

/// Filters for reading the event log; every set field must match.
public struct EventQuery: Sendable {
    public var projectId: String?
    public var deviceId: DeviceID?
    /// Matches events of the device that holds or held this token.
    public var token: String?
    /// Matches events of messages sent to this topic, and (un)subscriptions to it.
    public var topic: String?
    public var messageId: String?
    public var kinds: Set<Event.Kind>?
    public var since: Instant?
    public var until: Instant?
    /// At most this many events, the newest when more match.
    public var limit: Int

    public init(
        projectId: String? = nil, deviceId: DeviceID? = nil, token: String? = nil, topic: String? = nil,
        messageId: String? = nil, kinds: Set<Event.Kind>? = nil, since: Instant? = nil, until: Instant? = nil, limit: Int = 1000
    ) {
        self.projectId = projectId
        self.deviceId = deviceId
        self.token = token
        self.topic = topic
        self.messageId = messageId
        self.kinds = kinds
        self.since = since
        self.until = until
        self.limit = limit
    }
}
