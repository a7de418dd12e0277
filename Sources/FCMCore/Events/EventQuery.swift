// SPDX-License-Identifier: Apache-2.0

/// Filters for reading the event log; every set field must match.
package struct EventQuery: Sendable {
    package var projectId: String?
    package var deviceId: DeviceID?
    /// Matches events of the device that holds or held this token.
    package var token: String?
    /// Matches events of messages sent to this topic, and (un)subscriptions to it.
    package var topic: String?
    package var messageId: String?
    package var kinds: Set<Event.Kind>?
    package var since: Instant?
    package var until: Instant?
    /// At most this many events, the newest when more match.
    package var limit: Int

    package init(
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
