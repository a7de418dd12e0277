// SPDX-License-Identifier: Apache-2.0

/// Which clock an imported world's timers (TTL deadlines, Doze windows, latency retries) run on.
public enum SnapshotClock: String, Sendable, CaseIterable {
    /// The clock resumes at the snapshot's time: every timer has as long to go as it had when the
    /// snapshot was taken, however long the emulator was down.
    case snapshot
    /// The clock stays where the importing emulator's is (wall time under `serve`): the time the
    /// emulator was down has passed for the world too, so what fell due meanwhile fires at once.
    case wall
}

extension Emulator {
    /// Replaces the whole world with `image` in one lock hold: the image was parsed and checked
    /// outside the lock, so a refused import never got this far and left the world as it was.
    /// Returns the clock's time after the import.
    @discardableResult
    package func restore(_ image: WorldImage, clock: SnapshotClock) -> Instant {
        let (now, fanningOut) = withWorld { (w: inout World) -> (Instant, Bool) in
            let current = w.now
            w.replace(with: image.world)
            if clock == .wall, current > w.now { w.advance(to: current) }
            anchorClock(&w)
            for project in w.ccs.waiting.keys { w.ccsWork.insert(project) }
            transportRuleCount.store(w.faults.rules.filter(\.action.isTransport).count, ordering: .relaxed)
            return (w.now, !w.fanOuts.isEmpty)
        }
        if fanningOut { continueFanOuts() }
        return now
    }
}
