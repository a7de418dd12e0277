// SPDX-License-Identifier: Apache-2.0

/// What became of one message meant for one device, or of one refused request that named it: the
/// answer to "why didn't it arrive?" that outlives the event log (docs/control-api.md,
/// "Outcomes"). The global log drops its oldest events under load; a device's outcomes are its own.
package struct Outcome: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// A send that reached this device: to its token or FID, or through a topic, a condition or a group.
        case accepted
        /// Held: the device could not take it now (`reason`: offline, doze, background, latency).
        case stored
        case delivered
        /// Replaced by a newer stored message with the same collapse key.
        case collapsed
        /// Dropped to keep to the collapse-key limit.
        case evicted
        /// Its TTL ran out while stored.
        case expired
        /// Dropped without delivery: `ttl-zero`, `uninstalled`, `inactive`, `overflow`.
        case discarded
        /// A front refused a request that named this device's token or FID.
        case refused
    }

    /// What an outcome carries beside its kind, in one slot: outcomes are kept for thousands of
    /// devices, so each costs what it needs and no more.
    package enum Extra: Sendable {
        case none
        /// `accepted`: the topic or condition the send named, and how it reached the device.
        case via(String?, Via)
        /// `stored`: messages the device holds now; `overflow`: the limit that was passed.
        case count(Int)
        /// `collapsed` and `evicted`: the newer message that took the place.
        case newer(String)
        /// `discarded` with TTL 0: the device's state then.
        case state(DeviceState)
        /// `refused`: the status and code the client got.
        case call(EventCall)
    }

    package enum Via: String, Sendable {
        case token, fid, topic, condition, group
    }

    // Laid out with the one-byte kind last, so a slot is 64 bytes (docs/control-api.md, "Outcomes").
    package let time: Instant
    package let messageId: String?
    /// The event's machine-readable reason: `ttl-zero`, `offline`, `tray`, the collapse key, the
    /// accepting API, or a refusal's message.
    package let reason: String?
    package let extra: Extra
    package let kind: Kind

    init(time: Instant, kind: Kind, messageId: String?, reason: String?, extra: Extra) {
        self.time = time
        self.messageId = messageId
        self.reason = reason
        self.extra = extra
        self.kind = kind
    }

    /// The HTTP status of a refusal (nil on XMPP, and for every other kind).
    package var status: Int? {
        if case .call(let call) = extra { return call.status }
        return nil
    }

    /// The error code of a refusal, in the API's own words.
    package var code: String? {
        if case .call(let call) = extra { return call.code }
        return nil
    }
}

/// One device's newest outcomes, at most `limit`, in a ring that overwrites its oldest slot:
/// nothing is allocated for a device that never had one, and a full ring is 16 slots of 64
/// bytes (docs/control-api.md, "Outcomes").
struct OutcomeRing: Sendable {
    /// Outcomes each device keeps.
    static let limit = 16

    private var slots: ContiguousArray<Outcome> = []
    /// The slot the next outcome overwrites once the ring is full.
    private var head = 0

    mutating func append(_ outcome: Outcome) {
        if slots.count < Self.limit {
            slots.append(outcome)
            return
        }
        slots[head] = outcome
        head = (head + 1) % Self.limit
    }

    /// Newest first.
    var newestFirst: [Outcome] {
        guard slots.count == Self.limit else { return Array(slots.reversed()) }
        return (0..<Self.limit).map { slots[(head + Self.limit - 1 - $0) % Self.limit] }
    }
}

/// Every device's outcomes, by device: an entry exists only for a device that had an outcome,
/// and goes with the device. Transient like the event log: not in snapshots, empty after a reset.
struct DeviceOutcomes: Sendable {
    private var rings: [DeviceID: OutcomeRing] = [:]

    /// Notes `outcome` for `device`; a device with none yet gets a ring only while fewer than
    /// `limit` devices have one (`maxOutcomeDevices`: a full ring is about 1 KiB, and a fan-out
    /// reaches every subscriber).
    mutating func append(limit: Int, _ outcome: Outcome, for device: DeviceID) {
        if rings[device] == nil, rings.count >= limit { return }
        rings[device, default: OutcomeRing()].append(outcome)
    }

    mutating func remove(_ device: DeviceID) {
        rings[device] = nil
    }

    func newestFirst(_ device: DeviceID) -> [Outcome] {
        rings[device]?.newestFirst ?? []
    }

    /// Devices with at least one outcome.
    var count: Int { rings.count }
}
