// SPDX-License-Identifier: Apache-2.0

/// Maps wall time onto the emulator's clock for `serve`: the clock follows the wall at `speed`
/// unless paused, and `advance` jumps it ahead without waiting.
///
/// Pure arithmetic: the caller reads the wall clock and passes the reading in, so the mapping is
/// tested without time passing.
package struct ClockDriver: Sendable {
    /// Wall reading and emulator time at the last re-anchoring.
    private var wallAnchor: Int64
    private var virtualAnchor: Instant
    package private(set) var paused: Bool
    package private(set) var speed: Double

    /// Starts following the wall from `start`, at `speed` times real time.
    package init(wallMillis: Int64, start: Instant, speed: Double = 1, paused: Bool = false) {
        wallAnchor = wallMillis
        virtualAnchor = start
        self.speed = speed
        self.paused = paused
    }

    /// How fast the clock moves against the wall now: 0 while paused.
    package var effectiveSpeed: Double { paused ? 0 : speed }

    /// Where the emulator's clock should be at this wall reading.
    package func target(atWall wall: Int64) -> Instant {
        guard !paused else { return virtualAnchor }
        let elapsed = Double(max(0, wall - wallAnchor)) * speed
        return virtualAnchor.adding(millis: Int64(elapsed.rounded(.down)))
    }

    /// Stops the clock where it is.
    package mutating func pause(atWall wall: Int64) {
        reanchor(atWall: wall)
        paused = true
    }

    /// Lets the clock follow the wall again from where it stands.
    package mutating func resume(atWall wall: Int64) {
        reanchor(atWall: wall)
        paused = false
    }

    /// Changes how fast the clock runs relative to the wall.
    package mutating func setSpeed(_ newSpeed: Double, atWall wall: Int64) {
        reanchor(atWall: wall)
        speed = newSpeed
    }

    /// Records that the clock was moved to `instant` by hand; following resumes from there.
    package mutating func moved(to instant: Instant, atWall wall: Int64) {
        let current = target(atWall: wall)
        wallAnchor = wall
        virtualAnchor = max(instant, current)
    }

    /// Ties the clock to `instant` at this wall reading, before or after where it was: an import
    /// resumes the world at the snapshot's own time (`SnapshotClock.snapshot`); following resumes
    /// from there.
    package mutating func anchor(at instant: Instant, atWall wall: Int64) {
        wallAnchor = wall
        virtualAnchor = instant
    }

    private mutating func reanchor(atWall wall: Int64) {
        virtualAnchor = target(atWall: wall)
        wallAnchor = wall
    }
}
