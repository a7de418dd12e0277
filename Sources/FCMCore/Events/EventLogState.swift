// SPDX-License-Identifier: Apache-2.0

/// The two caps of the event log (`EmulatorSettings.maxEvents`, `maxEventBytes`), named as
/// `--set` names them, so a reader told that events were dropped knows which setting keeps more.
package enum EventLogCap: String, Sendable {
    case maxEvents
    case maxEventBytes
}

/// What the event log dropped, for readers of a list who would otherwise take the oldest event
/// kept for the first that happened (docs/control-api.md, "Events").
package struct EventLogState: Sendable {
    /// Events dropped to stay within the caps since this log began (a reset or an import starts another).
    package let evicted: Int
    /// The oldest event kept: the log is whole from here on.
    package let oldestSequence: Int
    package let oldestTime: Instant?
    /// The cap that dropped the last evicted event, and its value now.
    package let cap: EventLogCap?
    package let capValue: Int
}

extension Emulator {
    /// The event log's eviction state, read in one world call.
    package var eventLogState: EventLogState {
        withWorld { w in
            let log = w.events
            let cap = log.evictedBy
            return EventLogState(
                evicted: log.evicted, oldestSequence: log.oldestSequence, oldestTime: log.oldest?.time, cap: cap,
                capValue: cap == .maxEventBytes ? log.maxBytes : log.capacity)
        }
    }
}
