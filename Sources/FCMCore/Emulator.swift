// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// The simulated FCM: projects, devices, topics, groups, the clock, store and forward, and the
/// event log. Every front (HTTP, XMPP, scenarios, the control API) calls it.
///
/// Calls are short and synchronous under one lock, so NIO event loops call straight in with no
/// actor hop. Nothing inside the lock does I/O.
public final class Emulator: Sendable {
    /// How the clock moves.
    public enum ClockMode: Sendable {
        /// Only when told (`advance`): tests and scenarios.
        case virtual(start: Instant)
        /// Following a wall clock (`serve`), read through `wallMillis`, from `start` (default: the
        /// wall reading itself).
        case wall(start: Instant? = nil, wallMillis: @Sendable () -> Int64)
    }

    let state: Mutex<World>
    /// Transport fault rules in force, readable without the lock: the HTTP hot path checks it
    /// before building anything to match against.
    let transportRuleCount = Atomic<Int>(0)
    /// On a wall clock, wakes the worker that finishes fan-outs (serve's `FanOutService`); with
    /// none, the caller that queued them finishes them.
    private let fanOutWorker = Mutex<(@Sendable () -> Void)?>(nil)
    /// The driver's speed as a `Double`'s bits, 0 when paused or virtual: the HTTP transport reads
    /// it for an answer it delays (injected latency becomes waiting), so it takes no lock. Stored
    /// under the world's lock whenever the driver changes.
    private let clockSpeedBits = Atomic<UInt64>(0)
    private let wallMillis: (@Sendable () -> Int64)?
    /// Told (outside the lock) which projects' XMPP connections have CCS work.
    private let ccsListener = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Told (outside the lock) which real receivers' MCS connections have work.
    private let receiverListener = Mutex<(@Sendable (Set<UInt64>) -> Void)?>(nil)
    /// Told (outside the lock) that events were logged.
    let watchers = EventWatchers()

    /// A new emulator. With `demoProject`, the project of `DemoProject` exists from the start.
    public init(
        settings: EmulatorSettings = EmulatorSettings(), clock: ClockMode = .virtual(start: .virtualEpoch), demoProject: Bool = true
    ) {
        let start: Instant
        var driver: ClockDriver?
        switch clock {
        case .virtual(let s):
            start = s
            wallMillis = nil
        case .wall(let given, let read):
            let wall = read()
            start = given ?? Instant(millis: wall)
            wallMillis = read
            driver = ClockDriver(wallMillis: wall, start: start)
            clockSpeedBits.store(driver?.effectiveSpeed.bitPattern ?? 0, ordering: .relaxed)
        }
        var world = World(settings: settings, start: start)
        world.clockDriver = driver
        if demoProject {
            _ = try? world.createProject(id: DemoProject.id, number: DemoProject.number, serverKeys: [DemoProject.serverKey])
        }
        state = Mutex(world)
    }

    /// Runs `body` on the world after bringing a wall-driven clock up to date, in one lock hold
    /// (the clock's driver lives in the world, not behind a lock of its own).
    func withWorld<R: Sendable, E: Error>(_ body: (inout World) throws(E) -> R) throws(E) -> R {
        var work: Set<String> = []
        var receiverWork: Set<UInt64> = []
        // What was logged, for the watchers' index: `.some(nil)` when too much to list.
        var logged: [EventNote]?? = nil
        defer {
            notifyCCS(work)
            if !receiverWork.isEmpty, let listener = receiverListener.withLock({ $0 }) { listener(receiverWork) }
            if let logged { watchers.notify(logged) }
        }
        return try state.withLock { (world: inout World) throws(E) -> R in
            let before = world.events.nextSequence
            if let wallMillis, let target = world.clockDriver?.target(atWall: wallMillis()) {
                // A fast wall-driven clock stops at the last instant too (Instant.latest).
                world.advance(to: min(target, .latest))
            }
            defer {
                world.logInboxTrimming()
                work = world.ccsWork
                world.ccsWork = []
                if !world.receiverWork.isEmpty {
                    receiverWork = world.receiverWork
                    world.receiverWork = []
                }
                if world.events.nextSequence != before, !watchers.isEmpty { logged = .some(world.eventNotes(from: before)) }
            }
            return try body(&world)
        }
    }

    /// Calls `onChange` (outside the lock, on the emulator's watcher queue) after events that
    /// may concern `interest` are logged, until the returned watch is cancelled or released.
    /// Streams and waits use it to read again instead of polling; the index by interest
    /// keeps a send from waking readers of other devices.
    package func watchEvents(_ interest: EventInterest = .everything, _ onChange: @escaping @Sendable () -> Void) -> EventWatch {
        watchers.add(interest, onChange)
    }

    /// Finishes pending fan-outs a chunk per lock hold, so other clients get the lock in between
    /// (FanOut.swift). On a virtual clock (tests, scenarios, the engine benchmark) the caller
    /// finishes them before it returns, so runs stay deterministic; on a wall clock with a worker
    /// (`serve`) the worker does, so no event loop waits for a million deliveries.
    func continueFanOuts() {
        if wallMillis != nil, let wake = fanOutWorker.withLock({ $0 }) {
            wake()
            return
        }
        while continueFanOutChunk() {}
    }

    /// On a wall clock, `wake` is told whenever fan-outs are queued, and its worker finishes them
    /// by `continueFanOutChunk` until it says none remain.
    package func finishFanOuts(by wake: @escaping @Sendable () -> Void) {
        fanOutWorker.withLock { $0 = wake }
        if isFanningOut { wake() }
    }

    /// Dispatches one chunk of the pending fan-outs under one hold of the lock; whether any remain.
    package func continueFanOutChunk() -> Bool {
        withWorld { $0.continueFanOuts() }
    }

    package enum AccessTokenRecord: Sendable {
        case granted, revoked
        var event: Event.Kind { self == .granted ? .accessTokenGranted : .accessTokensRevoked }
    }

    /// Records what the proxy did with a CONNECT, so "my SDK went around the proxy" shows in the log.
    package func recordProxyConnect(_ detail: String) {
        withWorld { $0.log(.proxyConnect, detail: detail) }
    }

    /// Records an access token issued to `projectId`'s service account, or its tokens revoked, so
    /// a test counts an SDK's grants and refreshes (docs/http-v1.md, "Access tokens").
    package func recordAccessTokens(_ kind: AccessTokenRecord, projectId: String, detail: String) {
        withWorld { $0.log(kind.event, detail: detail, call: EventCall(project: projectId, api: "oauth")) }
    }

    /// An attempt to send to `target` (as `MessageTarget.description` writes it) that a transport
    /// fault refused before any front read it: the accepted attempt that follows counts it
    /// (`RetryLedger`, docs/simulation.md, "Retries made visible").
    package func noteRefusedSend(fingerprint: UInt64, target: String) {
        withWorld { w in
            _ = w.retries.attempt(RetryLedger.key(fingerprint: fingerprint, target: target), at: w.now, windowMillis: w.settings.retryWindowSeconds * 1000)
        }
    }

    /// Whether a topic or condition message is still reaching its recipients.
    package var isFanningOut: Bool { withWorld { !$0.fanOuts.isEmpty } }

    /// Wakes the XMPP connections of these projects; called with no lock held, so the listener
    /// may call back into the emulator.
    private func notifyCCS(_ projects: Set<String>) {
        guard !projects.isEmpty, let listener = ccsListener.withLock({ $0 }) else { return }
        for project in projects { listener(project) }
    }

    /// Sets who is told that a project's XMPP connections have work (the XMPP server).
    package func setCCSListener(_ listener: @escaping @Sendable (_ projectId: String) -> Void) {
        ccsListener.withLock { $0 = listener }
    }

    /// Sets who is told that real receivers' MCS connections have work (the MCS server).
    package func setReceiverListener(_ listener: @escaping @Sendable (_ androidIds: Set<UInt64>) -> Void) {
        receiverListener.withLock { $0 = listener }
    }

    package var settings: EmulatorSettings { state.withLock { $0.settings } }
}

// MARK: - Clock

extension Emulator {
    /// A reading of the emulator's clock and how it moves.
    package struct ClockStatus: Sendable, Equatable {
        package let now: Instant
        package enum Mode: String, Sendable {
            /// Moves only when told to (tests, scenarios).
            case virtual
            /// Follows wall time, paused or sped up on request (`serve`).
            case wall
        }

        package let mode: Mode
        package let paused: Bool
        package let speed: Double
        /// The next instant at which something is scheduled to happen.
        package let nextTimer: Instant?
        package let pendingTimers: Int
    }

    package var now: Instant { withWorld { $0.now } }

    /// How fast the clock runs against the wall: 0 when it is paused or virtual (it moves only
    /// when told). One atomic read, no lock.
    package var clockSpeed: Double { Double(bitPattern: clockSpeedBits.load(ordering: .relaxed)) }

    /// Changes a wall-clock driver at this wall reading, after bringing the clock up to it in the
    /// same lock hold, and publishes its speed; no effect on a virtual clock.
    private func changeDriver(_ body: (inout ClockDriver, _ wall: Int64) -> Void) {
        guard let wallMillis else { return }
        withWorld { world in
            guard var clock = world.clockDriver else { return }
            body(&clock, wallMillis())
            world.clockDriver = clock
            clockSpeedBits.store(clock.effectiveSpeed.bitPattern, ordering: .relaxed)
        }
    }

    package var clockStatus: ClockStatus {
        withWorld { world in
            let d = world.clockDriver
            return ClockStatus(
                now: world.now, mode: d == nil ? .virtual : .wall, paused: d?.paused ?? true, speed: d?.speed ?? 0,
                nextTimer: world.timers.nextDeadline, pendingTimers: world.timers.count
            )
        }
    }

    /// Moves the clock forward by `millis`, firing everything due on the way.
    @discardableResult
    package func advance(byMillis millis: Int64) throws(FCMError) -> Instant {
        guard millis >= 0 else { throw FCMError(.invalidArgument, "The clock only moves forward", field: "by") }
        let target = now.adding(millis: millis)
        guard target <= .latest else { throw FCMError(.invalidArgument, "The clock stops at \(Instant.latest.iso8601)", field: "by") }
        return try advance(to: target)
    }

    /// Moves the clock forward to `instant`, firing everything due on the way.
    @discardableResult
    package func advance(to instant: Instant) throws(FCMError) -> Instant {
        try withWorld { (world: inout World) throws(FCMError) -> Instant in
            guard instant >= world.now else {
                throw FCMError(.invalidArgument, "The clock only moves forward; it is \(world.now.iso8601)", field: "to")
            }
            guard instant <= .latest else {
                throw FCMError(.invalidArgument, "The clock stops at \(Instant.latest.iso8601)", field: "to")
            }
            let from = world.now
            world.advance(to: instant)
            if instant > from { world.log(.clockAdvanced, detail: "\(instant.millis(since: from))ms") }
            if let wallMillis { world.clockDriver?.moved(to: instant, atWall: wallMillis()) }
            return world.now
        }
    }

    /// Stops a wall-driven clock (no effect on a virtual one, which only moves when told).
    package func pauseClock() {
        changeDriver { $0.pause(atWall: $1) }
    }

    package func resumeClock() {
        changeDriver { $0.resume(atWall: $1) }
    }

    /// Sets how fast a wall-driven clock runs (1 = real time).
    package func setClockSpeed(_ speed: Double) throws(FCMError) {
        guard speed.isFinite, speed >= 0.001, speed <= 1_000_000 else {
            throw FCMError(.invalidArgument, "speed must be between 0.001 and 1000000", field: "speed")
        }
        guard wallMillis != nil else {
            throw FCMError(.conflict, "This emulator's clock is virtual; it only moves when advanced", field: "speed")
        }
        changeDriver { $0.setSpeed(speed, atWall: $1) }
    }

    /// Ties a wall-driven clock to the world's time from this wall reading on, though that time
    /// is earlier than the clock's (an import at the snapshot's time); no effect on a virtual clock.
    func anchorClock(_ world: inout World) {
        guard let wallMillis else { return }
        world.clockDriver?.anchor(at: world.now, atWall: wallMillis())
    }

    /// Brings a wall-driven clock up to date; `serve` calls it on a short tick.
    package func tick() { _ = now }
}
