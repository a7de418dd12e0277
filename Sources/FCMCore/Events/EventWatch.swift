// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// A registration made by `Emulator.watchEvents`; it ends with `cancel()` or when released, so
/// a closed connection cannot leave a watcher behind.
public final class EventWatch: Sendable {
    private let id: Int
    private let owner: EventWatchers

    init(id: Int, owner: EventWatchers) {
        self.id = id
        self.owner = owner
    }

    public func cancel() { owner.remove(id) }

    deinit { owner.remove(id) }
}

/// Who wants to hear that events were logged. The count is read without the lock, so a world with
/// no watchers pays one atomic load per change.
final class EventWatchers: Sendable {
    private let callbacks = Mutex<(next: Int, byId: [Int: @Sendable () -> Void])>((0, [:]))
    private let count = Atomic<Int>(0)

    func add(_ callback: @escaping @Sendable () -> Void) -> EventWatch {
        let id = callbacks.withLock { state in
            state.next += 1
            state.byId[state.next] = callback
            count.store(state.byId.count, ordering: .relaxed)
            return state.next
        }
        return EventWatch(id: id, owner: self)
    }

    func remove(_ id: Int) {
        callbacks.withLock { state in
            state.byId[id] = nil
            count.store(state.byId.count, ordering: .relaxed)
        }
    }

    func notify() {
        guard count.load(ordering: .relaxed) > 0 else { return }
        // Called outside the lock: a callback may read the world.
        for callback in callbacks.withLock({ Array($0.byId.values) }) { callback() }
    }
}
