// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Synchronization
import Testing

@Suite("Clock, instants and durations")
struct ClockTests {
    @Test func instantsRoundTripThroughRFC3339() {
        #expect(Instant.virtualEpoch.iso8601 == "2026-01-01T00:00:00.000Z")
        #expect(Instant(iso8601: "2026-01-01T00:00:00Z") == .virtualEpoch)
        #expect(Instant(iso8601: "2026-01-01T01:00:00.5+01:00") == Instant.virtualEpoch.adding(millis: 500))
        #expect(Instant(iso8601: "1969-12-31T23:59:59.999Z")?.millis == -1)
        // Python sends 6 fractional digits, Go 9; proto3 JSON writes 0, 3, 6 or 9
        // (https://protobuf.dev/programming-guides/json/, Timestamp).
        #expect(Instant(iso8601: "2026-01-01T00:00:00.123456Z") == Instant.virtualEpoch.adding(millis: 123))
        #expect(Instant(iso8601: "2026-01-01T00:00:00.123456789Z") == Instant.virtualEpoch.adding(millis: 123))
        #expect(Instant(iso8601: "2026-01-01T00:00:00.1Z") == Instant.virtualEpoch.adding(millis: 100))
        #expect(Instant(millis: 951_782_400_000).date == "2000-02-29")
        for bad in ["", "2026-13-01T00:00:00Z", "2026-01-01 00:00:00", "2026-01-01T00:00:00", "2026-01-01T00:00:00Zjunk"] {
            #expect(Instant(iso8601: bad) == nil, "\(bad)")
        }
    }

    @Test func durationsParseAsPeopleWriteThem() {
        #expect(DurationText.millis("500ms") == 500)
        #expect(DurationText.millis("90s") == 90_000)
        #expect(DurationText.millis("15m") == 900_000)
        #expect(DurationText.millis("1h30m") == 5_400_000)
        #expect(DurationText.millis("28d") == 2_419_200_000)
        #expect(DurationText.millis("2.5") == 2500)
        for bad in ["", "m", "5x", "-5s", "5 s s", "s5", "999999999999w", "1e300", "99999999999999"] {
            #expect(DurationText.millis(bad) == nil, "\(bad)")
        }
    }

    @Test func driverFollowsTheWallPausesAndRunsFaster() {
        var driver = ClockDriver(wallMillis: 1000, start: .virtualEpoch)
        #expect(driver.target(atWall: 1500) == Instant.virtualEpoch.adding(millis: 500))
        driver.pause(atWall: 2000)
        #expect(driver.target(atWall: 9000) == Instant.virtualEpoch.adding(millis: 1000))
        driver.resume(atWall: 9000)
        driver.setSpeed(60, atWall: 9000)
        #expect(driver.target(atWall: 10_000) == Instant.virtualEpoch.adding(millis: 61_000))
        driver.moved(to: Instant.virtualEpoch.adding(seconds: 3600), atWall: 10_000)
        #expect(driver.target(atWall: 10_000) == Instant.virtualEpoch.adding(seconds: 3600))
    }

    /// Found by the soak: a wall-driven clock advanced to the last instant kept running into year 10000.
    @Test func aWallDrivenClockStopsAtTheLastInstantToo() throws {
        let wall = WallStub()
        let emu = Emulator(clock: .wall(start: .virtualEpoch, wallMillis: { wall.read() }))
        try emu.advance(to: Instant.latest.adding(millis: -1000))
        wall.set(60_000)
        #expect(emu.now == Instant.latest)
        #expect(emu.now.iso8601 == "9999-12-31T23:59:59.999Z")
    }

    @Test func wallDrivenEmulatorAdvancesByHandAndKeepsFollowing() throws {
        let wall = WallStub()
        let emu = Emulator(clock: .wall(start: .virtualEpoch, wallMillis: { wall.read() }))
        wall.set(5000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 5000))
        try emu.advance(byMillis: 60_000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 65_000))
        emu.pauseClock()
        wall.set(99_000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 65_000))
        #expect(emu.clockStatus.paused)
        #expect(throws: FCMError.self) { try Emulator().setClockSpeed(2) }
    }

    /// A reset or an import replaces the world, never how the clock follows the wall (the
    /// driver lives in the world).
    @Test func aWallDrivenClockKeepsFollowingAfterAResetAndAnImport() throws {
        let wall = WallStub()
        let emu = Emulator(clock: .wall(start: .virtualEpoch, wallMillis: { wall.read() }))
        try emu.setClockSpeed(2)
        try emu.reset()
        wall.set(1000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 2000))
        #expect(emu.clockStatus.mode == .wall)
        #expect(emu.clockStatus.speed == 2)
        emu.restore(emu.worldImage(), clock: .wall)
        wall.set(2000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 4000))
        #expect(!emu.clockStatus.paused)
    }

    /// `clock: snapshot` under a wall clock (`serve --import`) resumes at the snapshot's instant,
    /// as docs/snapshots.md says, and follows the wall from there: it jumped back to the running
    /// time, so every timer due in between (TTL expiries) fired at the import.
    @Test func anImportAtTheSnapshotsTimeResumesThereUnderAWallClock() throws {
        let wall = WallStub()
        let emu = Emulator(clock: .wall(start: .virtualEpoch, wallMillis: { wall.read() }))
        wall.set(10_000)
        let image = emu.worldImage()
        wall.set(100_000)
        #expect(emu.restore(image, clock: .snapshot) == Instant.virtualEpoch.adding(millis: 10_000))
        wall.set(101_000)
        #expect(emu.now == Instant.virtualEpoch.adding(millis: 11_000))
        #expect(emu.restore(image, clock: .wall) == Instant.virtualEpoch.adding(millis: 11_000))
    }

    @Test func extremeClockAndHeaderValuesDoNotTrap() throws {
        let w = Harness()
        let d = try w.device(.ios)
        let apns = APNsOptions(headers: [("apns-expiration", String(Int64.min))])
        _ = try w.emu.send(SendRequest(target: .token(d.token), content: MessageContent(apns: apns), api: .v1), from: w.project)
        #expect(throws: FCMError.self) { try w.emu.advance(byMillis: Int64.max / 2) }
        #expect(try w.sendData(d).messageId.hasPrefix("0:"))
    }

    /// An advance by ~Int64.max froze the clock in year 292 million, and every
    /// later deadline wrapped, so each new message expired at once.
    @Test func theClockStopsAtTheLastInstantAndDeadlinesStillWork() throws {
        let w = Harness()
        #expect(throws: FCMError.self) { try w.emu.advance(byMillis: Int64.max - 10) }
        try w.emu.advance(to: Instant.latest.adding(seconds: -86_400))
        let d = try w.device(state: .offline)
        try w.sendData(d)
        try w.advance(seconds: 3600)
        #expect(try w.info(d).storedCount == 1)
        #expect(Instant.latest.adding(millis: .max) == Instant(millis: .max))
    }

    @Test func timersFireInDeadlineOrderWhileAdvancing() throws {
        let w = Harness()
        let a = try w.device(state: .offline)
        try w.sendData(a, [("k", "late")], ttl: 120)
        try w.sendData(a, [("k", "early")], ttl: 60)
        try w.advance(seconds: 300)
        let expired = try w.events(a, .expired)
        #expect(expired.map(\.time) == [Instant.virtualEpoch.adding(seconds: 60), Instant.virtualEpoch.adding(seconds: 120)])
    }
}

/// A settable wall clock for driving a wall-mode emulator without waiting.
final class WallStub: Sendable {
    private let value = Mutex<Int64>(0)

    func read() -> Int64 { value.withLock { $0 } }

    func set(_ v: Int64) { value.withLock { $0 = v } }
}

@Suite("Event log")
struct EventLogTests {
    @Test func keepsTheNewestEventsInOrderWhenFull() throws {
        let w = Harness { $0.maxEvents = 5 }
        let d = try w.device()
        for state in [DeviceState.background, .offline, .foreground, .background, .offline, .foreground] { try w.setState(d, state) }
        let events = try w.emu.events(EventQuery())
        #expect(events.count == 5)
        #expect(events.map(\.sequence) == Array(events.map(\.sequence).sorted()))
        #expect(events.last?.detail == "offline→foreground")
    }
}
