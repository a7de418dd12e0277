// SPDX-License-Identifier: Apache-2.0

/// Running totals of what the world logged, kept beside the event log and not in it, so the log's
/// eviction of old events never takes them away: what `/emulator/v1/metrics` serves
/// (docs/control-api.md, "Metrics"). Counted in `World.log`, the one door every event goes through.
/// They start at zero with the world (a reset or an import), which Prometheus reads as a counter reset.
package struct EventCounters: Sendable {
    /// Distinct `(api, code)` pairs of refusals kept apart; the rest are counted under `code="other"`.
    package static let maxRefusalLabels = 256

    /// Events by kind (hashed by case, `CaseHashing.swift`).
    private var byKind: [Event.Kind: Int64] = [:]
    /// Accepted messages by the API that accepted them.
    private var acceptedBySource: [SourceAPI: Int64] = [:]
    /// Accepted messages by the name of the API that accepted them.
    package var acceptedByAPI: [String: Int64] {
        Dictionary(uniqueKeysWithValues: acceptedBySource.map { ($0.key.rawValue, $0.value) })
    }
    /// Refused requests by API and error code, as the client saw them.
    package private(set) var refusals: [RefusalLabel: Int64] = [:]

    package struct RefusalLabel: Hashable, Sendable {
        package let api: String
        package let code: String
    }

    init() {}

    mutating func count(_ kind: Event.Kind, message: Message?, call: EventCall?) {
        byKind[kind, default: 0] += 1
        switch kind {
        case .accepted:
            if let api = message?.api { acceptedBySource[api, default: 0] += 1 }
        case .refused:
            var label = RefusalLabel(api: call?.api ?? "unknown", code: call?.code ?? "unknown")
            if refusals[label] == nil, refusals.count >= Self.maxRefusalLabels { label = RefusalLabel(api: label.api, code: "other") }
            refusals[label, default: 0] += 1
        default: break
        }
    }

    /// How many events of `kind` were logged.
    package func total(_ kind: Event.Kind) -> Int64 {
        byKind[kind] ?? 0
    }
}

/// What the world holds now, for the metrics' gauges: counted in one pass over the devices.
package struct WorldGauges: Sendable {
    package var projects = 0
    package var devicesByState: [DeviceState: Int] = [:]
    package var storedMessages = 0
    package var pendingTimers = 0
    package var eventsKept = 0
    /// Events the log dropped to stay within `maxEvents` and `maxEventBytes`.
    package var eventsEvicted = 0
    package var fanOutsInFlight = 0
}

extension Emulator {
    /// The counters and gauges of `/emulator/v1/metrics`, read in one world call. The devices are
    /// walked once (a few milliseconds for a million), which a scrape every 15 s easily affords.
    package func metrics() -> (EventCounters, WorldGauges) {
        withWorld { w in
            var gauges = WorldGauges()
            gauges.projects = w.projectIndexById.count
            for case let device? in w.devices {
                gauges.devicesByState[device.state, default: 0] += 1
                gauges.storedMessages += device.store?.items.count ?? 0
            }
            gauges.pendingTimers = w.timers.count
            gauges.eventsKept = w.events.count
            gauges.eventsEvicted = w.events.evicted
            gauges.fanOutsInFlight = w.fanOuts.count
            return (w.counters, gauges)
        }
    }
}
