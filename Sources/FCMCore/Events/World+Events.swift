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

    /// One slice of a newest-first read (`EventRead`): looks at no more than `maxScan` events
    /// below the read's cursor, so one hold of the world lock stays short however little the
    /// query matches in a log of a million. False when the read is over.
    func advance(_ read: inout EventRead, matching query: EventQuery, maxScan: Int) throws(FCMError) -> Bool {
        if read.generation != events.generation {
            // The first slice, or the log was replaced (a reset or an import) between two: the
            // read starts again on the new log.
            read = EventRead(before: read.before, log: events)
        }
        guard let filter = try EventFilter(query, in: self) else {
            read.matched.removeAll()
            return false
        }
        let below = min(read.cursor, events.nextSequence)
        // A kind filter reads its index: only what may match is looked at.
        if let indexed = events.index.sequences(kinds: query.kinds, below: below, limit: max(1, maxScan)) {
            for sequence in indexed where read.matched.count < query.limit {
                if let event = events[sequence: sequence], filter.matches(event, in: self) { read.matched.append(event) }
                read.cursor = sequence
            }
            if indexed.isEmpty { read.cursor = events.oldestSequence }
            return read.matched.count < query.limit && indexed.count == max(1, maxScan) && read.cursor > events.oldestSequence
        }
        var sequence = below - 1
        let stop = max(events.oldestSequence, sequence - max(1, maxScan) + 1)
        while sequence >= stop, read.matched.count < query.limit {
            if let event = events[sequence: sequence], filter.matches(event, in: self) { read.matched.append(event) }
            sequence -= 1
        }
        read.cursor = sequence + 1
        return read.matched.count < query.limit && sequence >= events.oldestSequence
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

/// A read of the newest events that match a query, newest first, made a slice at a time
/// (`World.advance(_:matching:maxScan:)`, `Emulator.events`): the events logged after it began
/// are not part of it, and the events it has looked at never change (the log only appends and
/// drops its oldest).
package struct EventRead: Sendable {
    /// Events one hold of the world lock looks at, for reads and tallies alike.
    package static let maxScan = 16_384

    /// What matched so far, newest first.
    var matched: [Event] = []
    /// The sequence the read started below (`before=` of the events list), if any.
    let before: Int?
    /// The next event looked at is the one before this sequence.
    var cursor: Int
    /// The log the read is of, and the sequence the next event logged after its start gets.
    let generation: Int
    let end: Int

    /// A read not begun: its first slice starts it on the current log.
    init(before: Int?) {
        self.before = before
        cursor = before ?? .max
        generation = -1
        end = 0
    }

    init(before: Int?, log: EventLog) {
        self.before = before
        cursor = min(before ?? .max, log.nextSequence)
        generation = log.generation
        end = log.nextSequence
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
    /// With a token filter: the device that holds or held it, if any device ever did.
    let tokenDevice: DeviceID?
    /// The token as a refused event keeps its target (cut to `Refusal.maxTextBytes`).
    let tokenTarget: String?

    /// Nil when nothing can match (a token held by another device than the one asked for).
    init?(_ query: EventQuery, in world: World) throws(FCMError) {
        self.query = query
        projectIndex = try query.projectId.map { id throws(FCMError) in try world.projectIndex(id: id) }
        device = query.deviceId
        tokenDevice = query.token.flatMap { world.deviceID(forToken: $0) ?? world.retiredTokens[$0]?.device }
        tokenTarget = query.token.map { Refusal.truncated($0) }
        if let device, let tokenDevice, device != tokenDevice { return nil }
    }

    func matches(_ event: Event, in world: World) -> Bool {
        if let kinds = query.kinds, !kinds.contains(event.kind) { return false }
        if let since = query.since, event.time < since { return false }
        if let until = query.until, event.time > until { return false }
        if let device, event.device != device { return false }
        if query.token != nil, !namesToken(event) { return false }
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

    /// An event of the token's device, or a request refused (or faulted) that named the token:
    /// one sent to a token no device ever held is found by its target alone.
    private func namesToken(_ event: Event) -> Bool {
        if let tokenDevice, event.device == tokenDevice { return true }
        return event.call?.target != nil && event.call?.target == tokenTarget
    }

    private func belongs(_ event: Event, to projectIndex: Int32, in world: World) -> Bool {
        if let id = event.device { return Int(id) < world.deviceProjects.count && world.deviceProjects[Int(id)] == projectIndex }
        if let message = event.message { return world.projectIndexById[message.projectId] == projectIndex }
        guard let project = world.projects[Int(projectIndex)]?.project else { return false }
        if let call = event.call { return call.project == project.id }
        return event.detail == project.id || event.kind == .clockAdvanced
    }
}
