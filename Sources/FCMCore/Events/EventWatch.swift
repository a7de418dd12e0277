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

    package func cancel() { owner.remove(id) }

    deinit { owner.remove(id) }
}

/// What a watcher may care about, so an event wakes only the watchers it may concern (300 waits
/// on other things each re-read the log on every send). Every set field narrows; a project's
/// deletion wakes everyone, since a read that fails is an answer too.
package struct EventInterest: Sendable {
    /// Only this device's events.
    package var device: DeviceID?
    /// Only events of this project, and those of no project (`clockAdvanced`).
    package var projectId: String?
    package var kinds: Set<Event.Kind>?

    package init(device: DeviceID? = nil, projectId: String? = nil, kinds: Set<Event.Kind>? = nil) {
        self.device = device
        self.projectId = projectId
        self.kinds = kinds
    }

    /// The interest of a reader of `query`: a token filter narrows by project only, as the token
    /// may name a device later.
    package init(_ query: EventQuery) {
        self.init(device: query.deviceId, projectId: query.projectId, kinds: query.kinds)
    }

    package static let everything = EventInterest()
}

/// What one logged event says to the watchers' index: read under the world's lock, a few words each.
struct EventNote: Sendable {
    let kind: Event.Kind
    let device: DeviceID?
    let projectId: String?
}

/// Who wants to hear that events were logged. The count is read without the lock, so a world with
/// no watchers pays one atomic load per change. The thread that logged events calls, outside the
/// world's lock, only the watchers an event may concern, found through an index by device and
/// project; a call only rings a doorbell, and the reading is done on the watcher's own
/// event loop, a page of new events at a time.
final class EventWatchers: Sendable {
    private struct Entry: Sendable {
        let interest: EventInterest
        let callback: @Sendable () -> Void
    }

    private struct State: Sendable {
        var next = 0
        var byId: [Int: Entry] = [:]
        var byDevice: [DeviceID: Set<Int>] = [:]
        var byProject: [String: Set<Int>] = [:]
        var unkeyed: Set<Int> = []
    }

    /// Events listed per change before it wakes everyone instead: a fan-out logs thousands at once.
    static let maxNotes = 256

    private let state = Mutex(State())
    private let count = Atomic<Int>(0)
    /// Callbacks made so far: tests count them to see that an event woke only whom it concerns.
    let calls = Atomic<Int>(0)

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    func add(_ interest: EventInterest, _ callback: @escaping @Sendable () -> Void) -> EventWatch {
        let id = state.withLock { s in
            s.next += 1
            s.byId[s.next] = Entry(interest: interest, callback: callback)
            if let device = interest.device {
                s.byDevice[device, default: []].insert(s.next)
            } else if let project = interest.projectId {
                s.byProject[project, default: []].insert(s.next)
            } else {
                s.unkeyed.insert(s.next)
            }
            count.store(s.byId.count, ordering: .relaxed)
            return s.next
        }
        return EventWatch(id: id, owner: self)
    }

    func remove(_ id: Int) {
        state.withLock { s in
            guard let entry = s.byId.removeValue(forKey: id) else { return }
            if let device = entry.interest.device {
                s.byDevice[device]?.remove(id)
                if s.byDevice[device]?.isEmpty == true { s.byDevice[device] = nil }
            } else if let project = entry.interest.projectId {
                s.byProject[project]?.remove(id)
                if s.byProject[project]?.isEmpty == true { s.byProject[project] = nil }
            } else {
                s.unkeyed.remove(id)
            }
            count.store(s.byId.count, ordering: .relaxed)
        }
    }

    /// Calls, once each, the watchers that one of `notes` may concern (all of them when nil: too
    /// many events to list).
    func notify(_ notes: [EventNote]?) {
        guard !isEmpty else { return }
        let callbacks: [@Sendable () -> Void] = state.withLock { s in
            guard let notes else { return s.byId.values.map(\.callback) }
            var woken = Set<Int>()
            for note in notes { collect(note, in: s, into: &woken) }
            return woken.compactMap { s.byId[$0]?.callback }
        }
        calls.add(callbacks.count, ordering: .relaxed)
        // Outside the lock: a callback may watch or cancel.
        for callback in callbacks { callback() }
    }

    private func collect(_ note: EventNote, in s: State, into woken: inout Set<Int>) {
        // A project's coming and going changes what any read answers (a deleted project's reads fail).
        if note.kind == .projectDeleted || note.kind == .projectCreated {
            woken.formUnion(s.byId.keys)
            return
        }
        func add(_ ids: Set<Int>?) {
            for id in ids ?? [] where s.byId[id]?.interest.kinds?.contains(note.kind) ?? true { woken.insert(id) }
        }
        add(s.unkeyed)
        if let device = note.device { add(s.byDevice[device]) }
        if let project = note.projectId {
            add(s.byProject[project])
        } else {
            // No project (the clock moved): every project's reads see it.
            for ids in s.byProject.values { add(ids) }
        }
    }
}
