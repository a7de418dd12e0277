// SPDX-License-Identifier: Apache-2.0

/// A wait's running count of the events that match its query (`waitFor=N` on an events list),
/// kept between wake-ups so that each reads only what was logged since the last one: re-running
/// the query scanned the whole log, up to a million events, for every open wait on every send.
/// Matching events are only ever added to the log, so the count only grows, except
/// when the log is replaced (a reset or an import) or a token filter comes to name a device:
/// then it is counted again, once.
package struct EventTally: Sendable {
    /// Matching events so far (at most the query's `limit`).
    package internal(set) var count: Int
    /// The next event to look at.
    var next: Int
    var generation: Int
    /// The device a token filter named when last counted (`nil` for none, `-1` for no token).
    var tokenDevice: Int64?
}

extension World {
    /// Brings `tally` up to date with at most `maxScan` events looked at; true when it is.
    func advance(_ tally: inout EventTally, matching query: EventQuery, maxScan: Int) throws(FCMError) -> Bool {
        let device = try tokenDevice(query)
        if tally.generation != events.generation || tally.next > events.nextSequence || device != tally.tokenDevice {
            // Counted again, from the oldest kept event forward, a bounded slice per call like
            // any other: a whole-log count here held the lock for a million events.
            tally = EventTally(count: 0, next: events.oldestSequence, generation: events.generation, tokenDevice: device)
        }
        let start = max(tally.next, events.oldestSequence)
        let end = min(events.nextSequence, start + max(1, maxScan))
        if let filter = try EventFilter(query, in: self) {
            for sequence in start..<end {
                guard tally.count < query.limit else { break }
                if let event = events[sequence: sequence], filter.matches(event, in: self) { tally.count += 1 }
            }
        }
        tally.next = end
        return end == events.nextSequence
    }

    private func tokenDevice(_ query: EventQuery) throws(FCMError) -> Int64? {
        guard let token = query.token else { return -1 }
        return (deviceID(forToken: token) ?? retiredTokens[token]?.device).map(Int64.init)
    }
}

extension Emulator {
    /// Events matching `query` (as `events(_:)`) and a tally of them to keep up to date with
    /// `advance(_:matching:)`: the tally counts from where the read began, so no event falls
    /// between the two.
    package func eventsTallied(_ query: EventQuery, maxScan: Int = EventRead.maxScan) throws(FCMError) -> (
        events: [Event], tally: EventTally
    ) {
        let read = try read(query, before: nil, maxScan: maxScan)
        let device = try withWorld { (w: inout World) throws(FCMError) -> Int64? in
            query.token.map { w.deviceID(forToken: $0) ?? w.retiredTokens[$0]?.device }.map { $0.map(Int64.init) } ?? -1
        }
        let tally = EventTally(count: read.matched.count, next: read.end, generation: read.generation, tokenDevice: device)
        return (read.matched.reversed(), tally)
    }

    /// Counts what was logged since `tally` last looked, a bounded page per hold of the lock
    /// (`EventRead.maxScan` events); false when more remain.
    package func advance(_ tally: inout EventTally, matching query: EventQuery, maxScan: Int = EventRead.maxScan) throws(FCMError) -> Bool {
        let current = tally
        let (updated, done) = try withWorld { (w: inout World) throws(FCMError) -> (EventTally, Bool) in
            var t = current
            let done = try w.advance(&t, matching: query, maxScan: maxScan)
            return (t, done)
        }
        tally = updated
        return done
    }

    /// Deliveries in a device's inbox (as many as `inbox` answers), without copying them: what
    /// an inbox wait counts on each wake-up.
    package func inboxCount(_ reference: String, projectId: String) throws(FCMError) -> Int {
        try withWorld { (w: inout World) throws(FCMError) -> Int in
            min(try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).inbox.count, w.settings.maxInboxPerDevice)
        }
    }
}
