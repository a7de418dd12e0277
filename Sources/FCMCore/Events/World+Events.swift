// SPDX-License-Identifier: Apache-2.0

extension World {
    func projectId(ofDevice id: DeviceID) -> String? {
        guard id >= 0, Int(id) < deviceProjects.count else { return nil }
        return projects[Int(deviceProjects[Int(id)])]?.project.id
    }

    /// The project an event concerns, when it concerns one.
    func projectId(of event: Event) -> String? {
        if let id = event.device { return projectId(ofDevice: id) }
        if let message = event.message { return message.projectId }
        if let project = event.call?.project { return project }
        switch event.kind {
        case .projectCreated, .projectDeleted: return event.detail
        default: return nil
        }
    }

    func events(matching query: EventQuery) throws(FCMError) -> [Event] {
        guard let filter = try EventFilter(query, in: self) else { return [] }
        var matched: [Event] = []
        for event in events.newestFirst where filter.matches(event, in: self) {
            matched.append(event)
            if matched.count >= query.limit { break }
        }
        return matched.reversed()
    }

    /// Events from sequence `cursor` on that match `query`: at most `maxEvents` of them, looking at
    /// no more than `maxScan` events, so a lock hold stays short however far behind the reader is.
    /// A cursor older than the oldest kept event skips to it and counts what was lost.
    func eventPage(from cursor: Int, matching query: EventQuery, maxScan: Int, maxEvents: Int) throws(FCMError) -> EventPage {
        var next = cursor
        var missed = 0
        if next < events.oldestSequence {
            missed = events.oldestSequence - next
            next = events.oldestSequence
        }
        // A cursor past the end belongs to a world that was replaced (a snapshot import).
        if next > events.nextSequence { next = events.nextSequence }
        guard let filter = try EventFilter(query, in: self) else {
            return EventPage(events: [], next: events.nextSequence, missed: missed, generation: events.generation)
        }
        var matched: [EventPage.Item] = []
        let end = min(events.nextSequence, next + maxScan)
        while next < end, matched.count < maxEvents {
            if let event = events[sequence: next], filter.matches(event, in: self) {
                matched.append(EventPage.Item(event: event, projectId: projectId(of: event)))
            }
            next += 1
        }
        return EventPage(events: matched, next: next, missed: missed, generation: events.generation)
    }

    /// What the events from sequence `first` on say to the watchers' index; nil when there are
    /// more than it takes in one go (it then wakes everyone).
    func eventNotes(from first: Int) -> [EventNote]? {
        let start = max(first, events.oldestSequence)
        // An import can replace the log with one whose sequence is behind `first` (a snapshot
        // taken earlier): nothing to list, so everyone is woken to read the new log.
        guard start <= events.nextSequence, events.nextSequence - start <= EventWatchers.maxNotes else { return nil }
        return (start..<events.nextSequence).compactMap { sequence in
            events[sequence: sequence].map { EventNote(kind: $0.kind, device: $0.device, projectId: projectId(of: $0)) }
        }
    }
}

/// A slice of the event log read from a cursor, for streams.
package struct EventPage: Sendable {
    package struct Item: Sendable {
        package let event: Event
        package let projectId: String?
    }

    package let events: [Item]
    /// Where the next read starts.
    package let next: Int
    /// Events the reader never saw: the log overwrote them before it got there.
    package let missed: Int
    /// Which log the page is from: a reset or an import starts another, whose sequence numbers
    /// may name other events.
    package let generation: Int
}

/// An `EventQuery` resolved against the world once per read: project and token become indexes.
struct EventFilter {
    let query: EventQuery
    let projectIndex: Int32?
    let device: DeviceID?

    /// Nil when nothing can match (a token that never existed).
    init?(_ query: EventQuery, in world: World) throws(FCMError) {
        self.query = query
        projectIndex = try query.projectId.map { id throws(FCMError) in try world.projectIndex(id: id) }
        var device = query.deviceId
        if let token = query.token {
            guard let id = world.deviceByToken[token] ?? world.retiredTokens[token]?.device else { return nil }
            if let device, device != id { return nil }
            device = id
        }
        self.device = device
    }

    func matches(_ event: Event, in world: World) -> Bool {
        if let kinds = query.kinds, !kinds.contains(event.kind) { return false }
        if let since = query.since, event.time < since { return false }
        if let until = query.until, event.time > until { return false }
        if let device, event.device != device { return false }
        if let id = query.messageId, event.message?.id != id, event.related?.id != id { return false }
        if let topic = query.topic {
            let aboutTopic =
                event.message?.topic == topic
                || ((event.kind == .subscribed || event.kind == .unsubscribed) && event.detail == topic)
            guard aboutTopic else { return false }
        }
        if let projectIndex, !belongs(event, to: projectIndex, in: world) { return false }
        return true
    }

    private func belongs(_ event: Event, to projectIndex: Int32, in world: World) -> Bool {
        if let id = event.device { return Int(id) < world.deviceProjects.count && world.deviceProjects[Int(id)] == projectIndex }
        if let message = event.message { return world.projectIndexById[message.projectId] == projectIndex }
        guard let project = world.projects[Int(projectIndex)]?.project else { return false }
        if let call = event.call { return call.project == project.id }
        return event.detail == project.id || event.kind == .clockAdvanced
    }
}
