// SPDX-License-Identifier: Apache-2.0

import DequeModule
import OrderedCollections

/// Why a snapshot's record cannot be part of a world. The snapshot layer adds the file and line.
package struct SnapshotProblem: Error, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}

/// Builds a world from snapshot records, checking each one against what came before, so that a
/// snapshot that would break the world's invariants (a dangling device, a token issued twice) is
/// refused at the record that breaks them. Runs on a fresh world outside any lock.
///
/// Order: projects, then devices (slot by slot), then tokens, topics, groups, timers and the rest.
package struct WorldBuilder: Sendable {
    var world: World
    private var topicMemberships = 0
    private var subscribedTopics = 0
    /// Devices added that are not deleted slots: what `maxDevices` counts (`World.deviceCount`).
    private var liveDevices = 0
    private var timers: Timers?
    /// The topics of the last device added, to share with the next one when they are the same
    /// (a million devices subscribed to one topic then hold one dictionary, not a million).
    private var lastTopics: [(String, Instant)] = []
    private var lastTopicSet: [String: Instant] = [:]

    package init(settings: EmulatorSettings, now: Instant, counters: SnapshotRecord.Counters) {
        world = World(settings: settings, start: now)
        world.ids.random = SeededRandom(seed: counters.randomState)
        world.ids.microCounter = counters.microCounter
        world.nextStoreSequence = counters.nextStoreSequence
        world.timers = TimerQueue(entries: [], nextSequence: counters.nextTimerSequence)
        world.events = EventLog(for: settings, events: [], nextSequence: counters.nextEventSequence)
        world.ccs = CCSOutbox(waiting: [:], nextConnection: counters.nextCCSConnection, drainRequests: [:])
    }

    /// The project at the next index, or a deleted slot (nil).
    package mutating func addProject(_ project: Project?) throws(SnapshotProblem) {
        let index = Int32(world.projects.count)
        guard let project else {
            world.projects.append(nil)
            return
        }
        guard Project.isValidId(project.id), Project.isValidNumber(project.number) else {
            throw SnapshotProblem("project '\(project.id)' has an invalid id or number")
        }
        do throws(FCMError) {
            try Project.checkServerKeys(project.serverKeys)
        } catch {
            throw SnapshotProblem("project '\(project.id)': \(error.message)")
        }
        guard world.projectIndexById[project.id] == nil, world.projectIndexByNumber[project.number] == nil else {
            throw SnapshotProblem("project '\(project.id)' or number \(project.number) appears twice")
        }
        // The caps hold for an import as for the API, against the snapshot's own
        // settings line, which was read first and range-checked: a world exported with
        // `maxProjects=5000` comes back with 5000 projects; one that lists more than its own cap
        // was edited, and is refused at the first project past it.
        guard world.projectIndexById.count < world.settings.maxProjects else {
            throw SnapshotProblem("project '\(project.id)' is past maxProjects (\(world.settings.maxProjects)) of the snapshot's settings")
        }
        world.projects.append(ProjectState(project: project))
        world.projectIndexById[project.id] = index
        world.projectIndexByNumber[project.number] = index
    }

    /// Room for the snapshot's devices, known from its manifest, so that a million of them are
    /// not copied again each time the arrays grow. A lone project (the usual world) gets room in
    /// its own device list too.
    package mutating func reserve(devices: Int) {
        let count = min(max(0, devices), 1 << 24, world.settings.maxDevices)
        world.devices.reserveCapacity(count)
        world.deviceProjects.reserveCapacity(count)
        let live = world.projects.indices.filter { world.projects[$0] != nil }
        if live.count == 1, let only = live.first {
            world.projects[only]?.devices.reserveCapacity(count)
        }
    }

    /// The slot of a deleted device: its id stays taken, and the event log still names its project.
    package mutating func addDeletedDevice(id: DeviceID, projectIndex: Int32) throws(SnapshotProblem) {
        try checkNextSlot(id)
        guard projectIndex >= 0, Int(projectIndex) < world.projects.count else {
            throw SnapshotProblem("device \(id) names project index \(projectIndex), which does not exist")
        }
        world.devices.append(nil)
        world.deviceProjects.append(projectIndex)
    }

    package mutating func addDevice(_ r: consuming SnapshotRecord.Device) throws(SnapshotProblem) {
        try checkNextSlot(r.id)
        try r.checkRanges()
        // What an export writes: a device's inbox is trimmed in batches, so up to twice its cap.
        guard (r.inbox?.count ?? 0) < 2 * world.settings.maxInboxPerDevice else {
            throw SnapshotProblem("device \(r.id) holds more deliveries than twice maxInboxPerDevice (\(world.settings.maxInboxPerDevice))")
        }
        guard liveDevices < world.settings.maxDevices else {
            throw SnapshotProblem("device \(r.id) is past maxDevices (\(world.settings.maxDevices)) of the snapshot's settings")
        }
        // No binding of the project's state: a live copy would make the appends below copy a
        // million-entry set on every device (the same trap as World.createDevice).
        let project = Int(r.projectIndex)
        guard r.projectIndex >= 0, project < world.projects.count, world.projects[project] != nil else {
            throw SnapshotProblem("device \(r.id) names project index \(r.projectIndex), which does not exist")
        }
        guard r.state != .doze || r.platform == .android else { throw SnapshotProblem("device \(r.id) dozes but is not Android") }
        guard !r.appId.isEmpty, !r.token.isEmpty, !r.fid.isEmpty else {
            throw SnapshotProblem("device \(r.id) lacks an app id, token or fid")
        }
        if let name = r.name, world.projects[project]?.devicesByName[name] != nil {
            throw SnapshotProblem("device name '\(name)' appears twice")
        }
        for (topic, _) in r.topics where !IdentifierShape.isValidTopicName(topic) {
            throw SnapshotProblem("device \(r.id) is subscribed to an invalid topic name")
        }
        if r.webPush != nil, r.platform != .web { throw SnapshotProblem("device \(r.id) has a Web Push subscription but is not a web device") }
        for s in r.stored.store.items where s.storeSequence >= world.nextStoreSequence {
            throw SnapshotProblem("device \(r.id) stores sequence \(s.storeSequence), past the store sequence counter")
        }
        // A token or FID that is this device's derived one is kept as derived, so a world the
        // emulator made imports as small as it was (`DeviceIdentities`); any other is given. Both
        // are checked before anything changes, so a refused device leaves the builder as it was.
        let derived = world.identities.derived
        let fidIsDerived = derived.fidOwner(r.fid) == r.id
        // A derived FID can only meet a given one: no other device derives it.
        let fidTaken =
            fidIsDerived
            ? world.projects[Int(r.projectIndex)]?.devicesByFid[r.fid] != nil
            : world.deviceID(forFid: r.fid, projectIndex: r.projectIndex) != nil
        if fidTaken { throw SnapshotProblem("device \(r.id) has the fid of another device") }
        let givenFid = fidIsDerived ? nil : r.fid
        // The record's FID is the device's, derived or not: the token is rebuilt from its bytes.
        let generation = derived.tokenOwner(r.token).flatMap { owner in
            owner.device == r.id && derived.isToken(r.token, device: r.id, generation: owner.generation, givenFid: r.fid)
                ? owner.generation : nil
        }
        if world.deviceID(forToken: r.token) != nil {
            throw SnapshotProblem("device \(r.id) holds a token another device holds")
        }
        _ = try? world.modifyProject(r.projectIndex) { state in
            state.devices.append(r.id)
            if let givenFid { state.devicesByFid[givenFid] = r.id }
            if let name = r.name { state.devicesByName[name] = r.id }
        }
        let topics: [String: Instant]
        if r.topics.isEmpty {
            topics = [:]
        } else if r.topics.elementsEqual(lastTopics, by: { $0.0 == $1.0 && $0.1 == $1.1 }) {
            topics = lastTopicSet
        } else {
            topics = Dictionary(r.topics, uniquingKeysWith: { a, _ in a })
            lastTopics = r.topics
            lastTopicSet = topics
        }
        var device = Device(
            id: r.id, projectIndex: r.projectIndex, platform: r.platform, name: r.name, appId: r.appId, state: r.state,
            createdAt: r.createdAt, lastConnectedAt: r.lastConnectedAt,
            // Snapshots older than the field: last seen when last connected.
            lastSeenAt: r.lastSeenAt ?? r.lastConnectedAt)
        device.extraSenders = r.extraSenders
        device.clientSdk = r.platform == .android ? r.clientSdk : .current
        device.topics = topics
        device.tokenValid = r.tokenValid
        device.lastInactiveDiscardAt = r.lastInactiveDiscardAt
        device.deletedSignalOwed = r.deletedSignalOwed
        device.store = r.stored.isEmpty ? nil : r.stored.store
        device.inbox = Deque(r.inbox ?? [])
        device.tray = r.tray
        device.unshownHighPriority = r.unshownHighPriority
        // A web device from a snapshot older than subscriptions gets a fresh one, as on creation.
        device.webPush = r.webPush ?? (r.platform == .web ? try? WebPushSubscription.make(applicationServerKey: nil) : nil)
        device.stateGeneration = r.stateGeneration
        if let givenFid {
            device.givenFid = true
            world.identities.givenFids[r.id] = givenFid
        }
        world.setToken(r.token, generation: generation, of: &device)
        subscribedTopics += topics.count
        liveDevices += 1
        world.devices.append(device)
        world.deviceProjects.append(r.projectIndex)
    }

    package mutating func addRetiredToken(_ r: SnapshotRecord.RetiredToken) throws(SnapshotProblem) {
        try checkSlot(r.device, what: "retired token")
        try SnapshotRecord.checkInstant(r.canonicalUntil, "retired token canonicalUntil")
        guard !world.isIssued(r.token) else {
            throw SnapshotProblem("retired token is also current, or appears twice")
        }
        world.retiredTokens[r.token] = RetiredToken(device: r.device, canonicalUntil: r.canonicalUntil)
    }

    package mutating func addTopic(_ r: SnapshotRecord.Topic) throws(SnapshotProblem) {
        guard r.projectIndex >= 0, Int(r.projectIndex) < world.projects.count, world.projects[Int(r.projectIndex)] != nil else {
            throw SnapshotProblem("topic '\(r.name)' names project index \(r.projectIndex), which does not exist")
        }
        guard world.projects[Int(r.projectIndex)]?.topics[r.name] == nil else { throw SnapshotProblem("topic '\(r.name)' appears twice") }
        var members = OrderedSet<DeviceID>()
        members.reserveCapacity(r.devices.count)
        try world.devices.withUnsafeBufferPointer { (devices) throws(SnapshotProblem) in
            for id in r.devices {
                guard id >= 0, Int(id) < devices.count, devices[Int(id)]?.projectIndex == r.projectIndex,
                    devices[Int(id)]?.topics[r.name] != nil
                else { throw SnapshotProblem("topic '\(r.name)' names device \(id), which is not a subscribed device of its project") }
                guard members.append(id).inserted else { throw SnapshotProblem("topic '\(r.name)' names device \(id) twice") }
            }
        }
        topicMemberships += members.count
        try? world.modifyProject(r.projectIndex) { $0.topics[r.name] = members }
    }

    package mutating func addGroup(_ group: DeviceGroup, projectIndex: Int32) throws(SnapshotProblem) {
        guard projectIndex >= 0, Int(projectIndex) < world.projects.count, world.projects[Int(projectIndex)] != nil else {
            throw SnapshotProblem("group '\(group.name)' names project index \(projectIndex), which does not exist")
        }
        guard world.projects[Int(projectIndex)]?.groups[group.notificationKey] == nil,
            world.projects[Int(projectIndex)]?.groupKeyByName[group.name] == nil
        else {
            throw SnapshotProblem("group '\(group.name)' appears twice")
        }
        try? world.modifyProject(projectIndex) {
            $0.groups[group.notificationKey] = group
            $0.groupKeyByName[group.name] = group.notificationKey
        }
    }

    /// The pending timers, read and checked apart from the builder (possibly before the devices,
    /// on another thread); `finish` refuses them unless they were checked against as many device
    /// slots as the world has, and its timer counter.
    package mutating func setTimers(_ timers: consuming Timers) {
        self.timers = timers
    }

    package mutating func addFanOut(_ r: SnapshotRecord.FanOut) throws(SnapshotProblem) {
        for id in r.recipients { try checkSlot(id, what: "fan-out") }
        guard r.next >= 0, r.next <= r.recipients.count else { throw SnapshotProblem("fan-out position is out of range") }
        world.fanOuts.append(FanOut(message: r.message, recipients: r.recipients, restricted: r.restricted, next: r.next))
    }

    package mutating func addRateWindow(_ r: SnapshotRecord.RateWindow) throws(SnapshotProblem) {
        try SnapshotRecord.checkInstant(r.start, "rateWindow.start")
        try SnapshotRecord.checkCounter(r.count, "rateWindow.count")
        world.rateWindows[r.key] = RateWindow(start: r.start, count: r.count)
    }

    package mutating func setFaults(_ r: SnapshotRecord.Faults) throws(SnapshotProblem) {
        for (_, n) in r.matched { try SnapshotRecord.checkCounter(n, "faults.matched") }
        for (_, n) in r.fired { try SnapshotRecord.checkCounter(n, "faults.fired") }
        guard r.rules.count <= world.settings.maxFaultRules else {
            throw SnapshotProblem("\(r.rules.count) fault rules are past maxFaultRules (\(world.settings.maxFaultRules)) of the snapshot's settings")
        }
        world.faults = FaultInjector(rules: r.rules, matched: r.matched, fired: r.fired)
    }

    package mutating func addCCSQueue(_ r: SnapshotRecord.CCSQueue) throws(SnapshotProblem) {
        guard world.ccs.waiting[r.projectId] == nil, world.ccs.drainRequests[r.projectId] == nil else {
            throw SnapshotProblem("CCS queue of '\(r.projectId)' appears twice")
        }
        guard r.items.count <= CCSOutbox.maxWaiting else {
            throw SnapshotProblem("CCS queue holds more than \(CCSOutbox.maxWaiting) items")
        }
        try SnapshotRecord.checkCounter(r.drainRequests, "ccs.drainRequests")
        for item in r.items { try SnapshotRecord.checkInstant(item.expiresAt, "ccs item expiresAt") }
        var waiting = world.ccs.waiting
        if !r.items.isEmpty { waiting[r.projectId] = Deque(r.items) }
        var drains = world.ccs.drainRequests
        if r.drainRequests > 0 { drains[r.projectId] = r.drainRequests }
        world.ccs = CCSOutbox(waiting: waiting, nextConnection: world.ccs.nextConnection, drainRequests: drains)
    }

    /// The event log, oldest first.
    package mutating func setEvents(_ events: [Event]) throws(SnapshotProblem) {
        world.events = EventLog(for: world.settings, events: events, nextSequence: world.events.nextSequence)
    }

    /// Checks one event, so a reader can name the line of a bad one.
    package func checkEvent(_ event: Event) throws(SnapshotProblem) {
        if let device = event.device { try checkSlot(device, what: "event") }
        try SnapshotRecord.checkInstant(event.time, "event time")
        guard event.sequence >= 0 else { throw SnapshotProblem("event sequence \(event.sequence) is negative") }
        guard event.sequence < world.events.nextSequence else { throw SnapshotProblem("event \(event.sequence) is past the event counter") }
    }

    /// The world, once the records agree with one another.
    package consuming func finish() throws(SnapshotProblem) -> WorldImage {
        guard topicMemberships == subscribedTopics else {
            throw SnapshotProblem(
                "devices hold \(subscribedTopics) topic subscriptions but the topics list \(topicMemberships) subscribers")
        }
        if var timers = timers.take() {
            guard timers.deviceSlots == world.devices.count, timers.nextSequence == world.timers.nextSequence else {
                throw SnapshotProblem(
                    "the timers were checked against \(timers.deviceSlots) device slots; there are \(world.devices.count)")
            }
            world.timers = timers.queue()
        }
        (world.inboxLedger, world.devices) = InboxLedger.rebuilt(from: world.devices)
        world.keepInboxesToBytes()
        return WorldImage(world)
    }

    package var deviceSlotCount: Int { world.devices.count }

    private func checkNextSlot(_ id: DeviceID) throws(SnapshotProblem) {
        guard Int(id) == world.devices.count else {
            throw SnapshotProblem("device \(id) is out of order; expected device \(world.devices.count) (ids are consecutive from 0)")
        }
    }

    private func checkSlot(_ id: DeviceID, what: String) throws(SnapshotProblem) {
        guard id >= 0, Int(id) < world.devices.count else { throw SnapshotProblem("\(what) names device \(id), which does not exist") }
    }
}

extension WorldBuilder {
    /// A snapshot's pending timers, checked and queued apart from the builder: they need only
    /// the number of device slots and the timer counter, so an import reads ten million of them
    /// on one core while the other reads the devices.
    package struct Timers: Sendable {
        let deviceSlots: Int
        let nextSequence: UInt64
        private var entries: [TimerQueue.Entry] = []
        private var queued: TimerQueue?

        /// Timers of a world with `deviceSlots` device slots (its devices file's lines).
        package init(deviceSlots: Int, counters: SnapshotRecord.Counters, capacity: Int) {
            self.deviceSlots = deviceSlots
            nextSequence = counters.nextTimerSequence
            entries.reserveCapacity(min(max(0, capacity), 1 << 28))
        }

        package var count: Int { queued?.count ?? entries.count }

        /// The next pending timer, in the order the image listed them (the queue's storage order).
        package mutating func add(_ t: SnapshotRecord.Timer) throws(SnapshotProblem) {
            let device = t.action.device
            guard device >= 0, Int(device) < deviceSlots else {
                throw SnapshotProblem("timer names device \(device), which does not exist")
            }
            guard t.sequence < nextSequence else { throw SnapshotProblem("timer sequence \(t.sequence) is past the timer counter") }
            try SnapshotRecord.checkInstant(t.deadline, "timer deadline")
            let action: TimerAction
            switch t.action {
            case .expire(let d, let s): action = .expire(device: d, storeSequence: s)
            case .dozeMaintenance(let d, let g): action = .dozeMaintenance(device: d, generation: g)
            case .retryDelivery(let d): action = .retryDelivery(device: d)
            }
            entries.append(TimerQueue.Entry(deadline: t.deadline, sequence: t.sequence, action: action))
        }

        /// Orders the timers into a queue now (ten million take a while), on the caller's thread.
        package mutating func seal() {
            guard queued == nil else { return }
            // Handed over, not shared: a queue whose heap shared the array would copy all of it
            // (hundreds of MiB) on its first change, the ordering itself.
            var list: [TimerQueue.Entry] = []
            swap(&list, &entries)
            queued = TimerQueue(entries: consume list, nextSequence: nextSequence)
        }

        mutating func queue() -> TimerQueue {
            seal()
            return queued ?? TimerQueue(entries: [], nextSequence: nextSequence)
        }
    }
}
