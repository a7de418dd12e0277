// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Synchronization

/// A queue of batches from one producer thread to one consumer thread: an import parses the
/// device lines on one core while the other puts the parsed devices into the world.
///
/// Unbounded on purpose: the producer runs ahead while the consumer reads the timers, and what
/// it queues is the world's own memory (strings, stored lists) on its way in, not extra.
final class BatchChannel<Batch: Sendable>: Sendable {
    private struct State {
        var batches: [Batch?] = []
        var head = 0
        var cancelled = false
    }

    private let state = Mutex(State())
    /// Counts the batches sent, and the close. Never waited on below its start (a semaphore
    /// released below its start value is a libdispatch crash), whatever the consumer does.
    private let ready = DispatchSemaphore(value: 0)

    /// Queues a batch; false once the consumer has stopped, and the producer should stop too.
    func send(_ batch: Batch) -> Bool {
        let accepted = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.batches.append(batch)
            return true
        }
        if accepted { ready.signal() }
        return accepted
    }

    /// The producer is done: after the batches queued, `receive` answers nil.
    func close() { ready.signal() }

    /// The next batch, waiting for it; nil once the producer closed and all were taken.
    func receive() -> Batch? {
        ready.wait()
        return state.withLock { s -> Batch? in
            guard s.head < s.batches.count else { return nil }
            let batch = s.batches[s.head].take()
            s.head += 1
            if s.head == s.batches.count {
                s.batches.removeAll(keepingCapacity: true)
                s.head = 0
            }
            return batch
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The consumer stopped: sends fail from now on, and what was queued is dropped.
    func cancel() {
        state.withLock {
            $0.cancelled = true
            $0.batches.removeAll()
            $0.head = 0
        }
    }
}
