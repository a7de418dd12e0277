// SPDX-License-Identifier: Apache-2.0

/// One instant of the world, for a snapshot. Holds a copy of `World`, whose big members are
/// copy-on-write, so taking one costs O(1) under the lock; the records are made from the copy,
/// outside the lock, one at a time, so an encoder never needs a second copy of a million devices.
public struct WorldImage: Sendable {
    let world: World

    init(_ world: World) { self.world = world }

    package var now: Instant { world.now }
    package var settings: EmulatorSettings { world.settings }

    package var counters: SnapshotRecord.Counters {
        SnapshotRecord.Counters(
            randomState: world.ids.random.state, microCounter: world.ids.microCounter, nextStoreSequence: world.nextStoreSequence,
            nextTimerSequence: world.timers.nextSequence, nextEventSequence: world.events.nextSequence,
            nextCCSConnection: world.ccs.nextConnection)
    }

    /// Projects by index; nil where a project was deleted (indices are never reused).
    package var projects: [Project?] { world.projects.map { $0?.project } }

    /// Device slots ever made; a deleted device keeps its slot (ids are never reused).
    package var deviceSlotCount: Int { world.devices.count }

    /// The project a device slot belonged to, also after the device was deleted.
    package func projectIndex(ofSlot slot: Int) -> Int32 { world.deviceProjects[slot] }

    /// The live device in `slot`, or nil when it was deleted.
    package func device(_ slot: Int, inbox: Bool) -> SnapshotRecord.Device? {
        guard let d = world.devices[slot] else { return nil }
        let stored = SnapshotRecord.StoredList(store: d.store ?? PendingStore())
        var record = SnapshotRecord.Device(
            id: d.id, projectIndex: d.projectIndex, platform: d.platform, name: d.name, appId: d.appId, token: world.token(of: d),
            tokenValid: d.tokenValid, fid: world.fid(of: d), state: d.state, extraSenders: d.extraSenders,
            topics: d.topics.count <= 1
                ? d.topics.map { ($0.key, $0.value) } : d.topics.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            createdAt: d.createdAt,
            lastConnectedAt: d.lastConnectedAt, lastInactiveDiscardAt: d.lastInactiveDiscardAt, deletedSignalOwed: d.deletedSignalOwed,
            stateGeneration: d.stateGeneration, stored: stored, inbox: inbox ? Array(d.inbox) : nil, lastSeenAt: d.lastSeenAt)
        record.tray = d.tray
        record.unshownHighPriority = d.unshownHighPriority
        record.webPush = d.webPush
        record.clientSdk = d.clientSdk
        return record
    }

    /// Retired tokens, sorted by token (dictionary order differs between runs).
    package var retiredTokens: [SnapshotRecord.RetiredToken] {
        world.retiredTokens.map {
            SnapshotRecord.RetiredToken(token: $0.key, device: $0.value.device, canonicalUntil: $0.value.canonicalUntil)
        }
        .sorted { $0.token < $1.token }
    }

    /// Topics by project index then name, each with its subscribers in fan-out order.
    package var topics: [SnapshotRecord.Topic] {
        world.projects.enumerated().flatMap { index, state in
            (state?.topics ?? [:]).filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map {
                SnapshotRecord.Topic(projectIndex: Int32(index), name: $0.key, devices: Array($0.value))
            }
        }
    }

    /// Device groups by project index then notification key.
    package var groups: [(projectIndex: Int32, group: DeviceGroup)] {
        world.projects.enumerated().flatMap { index, state in
            (state?.groups ?? [:]).sorted { $0.key < $1.key }.map { (Int32(index), $0.value) }
        }
    }

    /// Pending timers in the queue's own storage order: an import rebuilds the queue from that
    /// order unchanged, so a second export writes them alike without sorting ten million entries.
    package var timers: some Sequence<SnapshotRecord.Timer> {
        world.timers.entries.lazy.map { entry in
            let action: SnapshotRecord.Timer.Action
            switch entry.action {
            case .expire(let d, let s): action = .expire(device: d, storeSequence: s)
            case .dozeMaintenance(let d, let g): action = .dozeMaintenance(device: d, generation: g)
            case .retryDelivery(let d): action = .retryDelivery(device: d)
            }
            return SnapshotRecord.Timer(deadline: entry.deadline, sequence: entry.sequence, action: action)
        }
    }

    /// Calls `body` with each pending timer in the order of `timers`; a plain loop, which a
    /// writer of ten million lines calls without the generic sequence's per-element overhead.
    package func forEachTimer<E: Error>(_ body: (SnapshotRecord.Timer) throws(E) -> Void) throws(E) {
        for entry in world.timers.entries {
            let action: SnapshotRecord.Timer.Action
            switch entry.action {
            case .expire(let d, let s): action = .expire(device: d, storeSequence: s)
            case .dozeMaintenance(let d, let g): action = .dozeMaintenance(device: d, generation: g)
            case .retryDelivery(let d): action = .retryDelivery(device: d)
            }
            try body(SnapshotRecord.Timer(deadline: entry.deadline, sequence: entry.sequence, action: action))
        }
    }

    package var fanOuts: [SnapshotRecord.FanOut] {
        world.fanOuts.map {
            SnapshotRecord.FanOut(message: $0.message, recipients: $0.recipients, restricted: $0.restricted, next: $0.next)
        }
    }

    /// The windows that still count: an ended one is no window (`World.isLive`).
    package var rateWindows: [SnapshotRecord.RateWindow] {
        world.rateWindows.filter { world.isLive($0.key, $0.value) }
            .map { SnapshotRecord.RateWindow(key: $0.key, start: $0.value.start, count: $0.value.count) }
            .sorted { $0.key < $1.key }
    }

    package var faults: SnapshotRecord.Faults {
        SnapshotRecord.Faults(rules: world.faults.rules, matched: world.faults.matched, fired: world.faults.fired)
    }

    /// What CCS owes each project, by project id. Items a connection held un-acked are put back
    /// in line as if it had closed: a snapshot outlives connections, and CCS sends un-acked items
    /// again on the next one (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref; docs/xmpp.md).
    package var ccsQueues: [SnapshotRecord.CCSQueue] {
        var outbox = world.ccs
        for connection in outbox.inFlight.keys.sorted() { outbox.disconnect(connection) }
        let projects = Set(outbox.waiting.keys).union(outbox.drainRequests.keys).sorted()
        return projects.map {
            SnapshotRecord.CCSQueue(projectId: $0, items: Array(outbox.waiting[$0] ?? []), drainRequests: outbox.drainRequests[$0] ?? 0)
        }
    }

    /// The event log, oldest first.
    package var events: [Event] { world.events.all }
}

extension Emulator {
    /// The world at this instant, for export. O(1) under the lock (copy-on-write); the caller
    /// encodes it with the lock released.
    package func worldImage() -> WorldImage {
        WorldImage(withWorld { $0 })
    }
}
