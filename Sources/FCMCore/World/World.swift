// SPDX-License-Identifier: Apache-2.0

import DequeModule
import OrderedCollections

/// Everything the emulator simulates, owned by one `Emulator` behind one lock.
///
/// Synchronous and deterministic: it reads time only from `now`, randomness only from its seeded
/// generator, and does no I/O (Sources/README.md). Its operations live in
/// `World+<Concern>.swift` files.
struct World: Sendable {
    var settings: EmulatorSettings
    private(set) var now: Instant
    /// How a wall-driven clock (`serve`) follows the wall, nil for a virtual one: here, so a call
    /// brings the clock up to date in the world's own lock hold. Not part of a
    /// snapshot: `Emulator.restore` keeps the running emulator's.
    var clockDriver: ClockDriver?
    var timers = TimerQueue()
    var ids: IdentifierFactory
    var events: EventLog
    /// Totals of what was logged, which the log's eviction does not take away (`/emulator/v1/metrics`).
    var counters = EventCounters()
    /// Each device's newest outcomes, which the log's eviction does not take away either (`World+Outcomes`).
    var outcomes = DeviceOutcomes()

    var projects: [ProjectState?] = []
    var projectIndexById: [String: Int32] = [:]
    var projectIndexByNumber: [String: Int32] = [:]

    var devices: [Device?] = []
    /// The project of every device ever created, by id (kept after deletion, for the event log).
    var deviceProjects: [Int32] = []
    /// Devices' tokens and FIDs: derived from their index, or given and kept (`DeviceIdentities`).
    var identities: DeviceIdentities
    /// Tokens that were replaced or invalidated, so sends to them answer correctly.
    var retiredTokens: [String: RetiredToken] = [:]

    var nextStoreSequence: UInt64 = 0
    /// Every inbox's deliveries, oldest first, and their bytes (`maxInboxBytes`).
    var inboxLedger = InboxLedger()
    var rateWindows: [String: RateWindow] = [:]
    /// The size of `rateWindows` at which the next new window sweeps the ended ones.
    var rateWindowsPruneAt = World.minRateWindowsPruneAt
    /// FCM's per-project quota windows (`quotas=fcm`), by project index; transient (World+Quotas).
    var quotas: [Int32: ProjectQuotas] = [:]
    var faults = FaultInjector()
    /// Recent sends by what they would repeat (`retryWindow`); transient, not in snapshots.
    var retries = RetryLedger()
    var ccs = CCSOutbox()
    /// Real receivers: check-ins, registrations, installations and their MCS outboxes.
    var receivers = ReceiverRegistry()
    /// Android ids whose MCS connection has something to send or must close, told to the MCS
    /// server outside the lock (`Emulator.setReceiverListener`).
    var receiverWork: Set<UInt64> = []
    /// Projects whose CCS connections have work, to be told once the lock is released.
    var ccsWork: Set<String> = []
    /// Topic and condition messages still reaching their recipients, in chunks.
    var fanOuts: Deque<FanOut> = []

    init(settings: EmulatorSettings, start: Instant) {
        self.settings = settings
        now = start
        ids = IdentifierFactory(seed: settings.seed)
        identities = DeviceIdentities(seed: settings.seed)
        events = EventLog(for: settings)
    }

    /// Becomes `other`, keeping how the running emulator's clock follows the wall: a reset or an
    /// import replaces the world, never the clock's driver.
    mutating func replace(with other: World) {
        let driver = clockDriver
        self = other
        clockDriver = driver
    }

    // MARK: - Clock

    /// Moves the clock forward, firing every timer due on the way in (deadline, sequence) order.
    mutating func advance(to target: Instant) {
        while let entry = timers.popDue(notAfter: target) {
            if entry.deadline > now { now = entry.deadline }
            fire(entry.action)
        }
        if target > now { now = target }
    }

    private mutating func fire(_ action: TimerAction) {
        switch action {
        case .expire(let device, let sequence): expireStored(device: device, storeSequence: sequence)
        case .dozeMaintenance(let device, let generation): dozeMaintenance(device: device, generation: generation)
        case .retryDelivery(let device): flush(device: device, maintenance: false)
        }
    }

    mutating func log(
        _ kind: Event.Kind, device: DeviceID? = nil, message: Message? = nil, related: Message? = nil, detail: String? = nil,
        call: EventCall? = nil
    ) {
        events.append(time: now, kind: kind, device: device, message: message, related: related, detail: detail, call: call)
        counters.count(kind, message: message, call: call)
        if let device { noteOutcome(kind, device: device, message: message, related: related, detail: detail) }
    }

    mutating func nextSequence() -> UInt64 {
        defer { nextStoreSequence += 1 }
        return nextStoreSequence
    }
}

/// Per-project state: its devices, topics and device groups.
struct ProjectState: Sendable {
    var project: Project
    var devices: OrderedSet<DeviceID> = []
    var devicesByName: [String: DeviceID] = [:]
    /// Its devices' given FIDs; derived ones name their device themselves (`DeviceIdentities`).
    var devicesByFid: [String: DeviceID] = [:]
    var topics: [String: OrderedSet<DeviceID>] = [:]
    var groups: [String: DeviceGroup] = [:]
    var groupKeyByName: [String: String] = [:]
}

/// A token that no longer names a device directly.
struct RetiredToken: Sendable {
    let device: DeviceID
    /// Until when the token still works and answers with the device's current token (docs/simulation.md, "Tokens");
    /// nil when it is simply unregistered.
    let canonicalUntil: Instant?
}

/// A fixed-window message counter for the optional rate limits.
struct RateWindow: Sendable {
    var start: Instant
    var count: Int
}
