// SPDX-License-Identifier: Apache-2.0

import DequeModule
import FCMCore
import FCMTransport
import NIOCore
import Synchronization

/// The newest events' frames, read from the log once for every stream of an emulator (each of
/// 1,000 streams reading its own page under the world's lock, and being woken on its own, made a
/// send 86× slower even with each event encoded once).
///
/// One watch on the emulator marks the window stale and wakes each event loop that serves streams
/// once; the first stream that then reads takes one bounded page of the log under the world's lock
/// for all of them, and each stream filters the frames by their typed fields without that lock and
/// writes what matches in one go. The window is bounded by frames and by bytes; a stream behind
/// it, or one the window cannot serve (a token filter, another log), reads the log itself
/// (`EventStreamReader`), which also tells it when the log overwrote events it had not read.
final class EventBroadcast: Sendable {
    /// An event's frame and what a stream's filter looks at.
    struct Frame: Sendable {
        let sequence: Int
        let time: Instant
        let kind: Event.Kind
        let device: DeviceID?
        let projectId: String?
        let messageId: String?
        let relatedId: String?
        let topic: String?
        let detail: String?
        let bytes: [UInt8]
    }

    /// What a stream gets from the window.
    enum Read {
        /// Frames from the stream's cursor on (none when nothing is new), where the next read
        /// starts, and whether more may be read at once.
        case frames(ArraySlice<Frame>, next: Int, more: Bool)
        /// The window does not hold the cursor: read the log.
        case readLog
    }

    private struct Window: Sendable {
        var generation = -1
        /// The sequence number of the first frame kept: the window holds every event from here
        /// to `end`.
        var start = 0
        var end = 0
        var frames: Deque<Frame> = []
        var bytes = 0
    }

    private struct Group: Sendable {
        let loop: (any EventLoop)?
        /// Set while a wake-up task is queued on the loop: any number of logged changes make one.
        let rung = Bell()
        var wakes: [Int: @Sendable () -> Void] = [:]
    }

    private final class Bell: Sendable {
        private let rung = Atomic<Bool>(false)
        /// When the loop last woke its streams, on the loop's own clock (`UInt64.max`: never).
        private let last = Atomic<UInt64>(.max)
        func ring() -> Bool { !rung.exchange(true, ordering: .acquiringAndReleasing) }
        func answer(at now: NIODeadline) {
            last.store(now.uptimeNanoseconds, ordering: .relaxed)
            rung.store(false, ordering: .releasing)
        }
        /// The earliest the loop wakes its streams again: `wakeInterval` after the last time.
        func due(after interval: TimeAmount) -> NIODeadline? {
            let last = last.load(ordering: .relaxed)
            return last == .max ? nil : .uptimeNanoseconds(last) + interval
        }
    }

    /// A loop wakes its streams at once when it has not for this long, else this long after it
    /// last did: at a few events a second each is written as it comes, and under load (1,000
    /// streams and thousands of events a second made a send 76 times slower, one socket write per
    /// stream per event) each stream gets one write per interval with all that was logged.
    static let wakeInterval = TimeAmount.milliseconds(20)

    static let maxFrames = 4096
    static let maxBytes = 4 << 20
    /// Events read from the log per refill: one short hold of the world's lock.
    static let pageEvents = 512

    private let emulator: Emulator
    private let frames: EventFrames
    private let window = Mutex(Window())
    /// Set when events were logged that the window has not read.
    private let stale = Atomic<Bool>(true)
    private let groups = Mutex<(next: Int, byLoop: [ObjectIdentifier?: Group])>((0, [:]))
    private let watch = Mutex<EventWatch?>(nil)
    /// Reads of the event log under the world's lock, by the window and by streams reading it
    /// themselves: tests check that a send costs a few, however many streams are open.
    let logReads = Atomic<Int>(0)

    init(emulator: Emulator, frames: EventFrames) {
        self.emulator = emulator
        self.frames = frames
        // From now on: no stream is older than the first, and older events are read from the log.
        let now = emulator.nextEventSequence
        window.withLock { $0.start = now; $0.end = now }
        let watch = emulator.watchEvents(.everything) { [weak self] in self?.logged() }
        self.watch.withLock { $0 = watch }
    }

    deinit { watch.withLock { $0?.cancel() } }

    /// Calls `wake` (on `loop`, or at once when nil) whenever events were logged, one task per
    /// loop for all its streams; ends when the returned watch is cancelled or released.
    func subscribe(on loop: (any EventLoop)?, _ wake: @escaping @Sendable () -> Void) -> StreamWatch {
        let key = loop.map { ObjectIdentifier($0) }
        let id = groups.withLock { g in
            g.next += 1
            g.byLoop[key, default: Group(loop: loop)].wakes[g.next] = wake
            return g.next
        }
        return StreamWatch { [weak self] in
            self?.groups.withLock { g in
                g.byLoop[key]?.wakes[id] = nil
                if g.byLoop[key]?.wakes.isEmpty == true { g.byLoop[key] = nil }
            }
        }
    }

    /// On the thread that logged events, outside the world's lock.
    private func logged() {
        stale.store(true, ordering: .releasing)
        let byLoop = groups.withLock { $0.byLoop }
        for (key, group) in byLoop {
            guard let loop = group.loop else {
                for wake in group.wakes.values { wake() }
                continue
            }
            guard group.rung.ring() else { continue }
            // Whatever each stream finds to do is done on the loop that owns it, one task for all.
            let task = { @Sendable [weak self] in
                group.rung.answer(at: loop.now)
                guard let self else { return }
                let wakes = self.groups.withLock { $0.byLoop[key].map { Array($0.wakes.values) } ?? [] }
                for wake in wakes { wake() }
            }
            if let due = group.rung.due(after: Self.wakeInterval), due > loop.now {
                loop.scheduleTask(deadline: due, task)
            } else {
                loop.execute(task)
            }
        }
    }

    /// Frames from `cursor` on, at most `maxEvents` and about `maxBytes`, when the window holds
    /// them for log `generation`.
    func read(from cursor: Int, generation: Int, maxEvents: Int, maxBytes: Int) -> Read {
        window.withLock { w in
            if stale.exchange(false, ordering: .acquiringAndReleasing) { refill(&w) }
            guard w.generation == generation, cursor >= w.start else { return .readLog }
            guard cursor < w.end else { return .frames([], next: cursor, more: stale.load(ordering: .acquiring)) }
            let first = cursor - w.start
            var last = first
            var bytes = 0
            while last < w.frames.count, last - first < maxEvents, bytes < maxBytes {
                bytes += w.frames[last].bytes.count
                last += 1
            }
            let slice = Array(w.frames[first..<last])[...]
            let next = w.start + last
            return .frames(slice, next: next, more: next < w.end || stale.load(ordering: .acquiring))
        }
    }

    /// One page of new events into the window; stale again when the log holds more.
    private func refill(_ w: inout Window) {
        logReads.add(1, ordering: .relaxed)
        let page: EventPage
        do throws(FCMError) {
            page = try emulator.eventPage(from: w.end, matching: EventQuery(), maxScan: Self.pageEvents, maxEvents: Self.pageEvents)
        } catch {
            return  // an empty query never fails
        }
        // Unfiltered, a page's events are consecutive: they begin `count` before `next`.
        let first = page.next - page.events.count
        if page.generation != w.generation || first != w.end {
            // Another log, or the log overwrote events the window had not read: start over there.
            w = Window(generation: page.generation, start: first, end: first)
        }
        for item in page.events {
            let event = item.event
            let frame = Frame(
                sequence: event.sequence, time: event.time, kind: event.kind, device: event.device, projectId: item.projectId,
                messageId: event.message?.id, relatedId: event.related?.id, topic: event.message?.topic, detail: event.detail,
                bytes: frames.frame(item, generation: page.generation))
            w.frames.append(frame)
            w.bytes += frame.bytes.count
        }
        w.end = page.next
        while w.frames.count > 1, w.frames.count > Self.maxFrames || w.bytes > Self.maxBytes {
            w.bytes -= w.frames.removeFirst().bytes.count
            w.start += 1
        }
        if page.events.count == Self.pageEvents { stale.store(true, ordering: .releasing) }
    }
}

extension EventBroadcast.Frame {
    /// `EventFilter.matches` on the typed fields, without the world: the project is the one the
    /// event concerned when it was read (`World.projectId(of:)`).
    func matches(_ query: EventQuery, device: DeviceID?) -> Bool {
        if let kinds = query.kinds, !kinds.contains(kind) { return false }
        if let since = query.since, time < since { return false }
        if let until = query.until, time > until { return false }
        if let device, self.device != device { return false }
        if let id = query.messageId, messageId != id, relatedId != id { return false }
        if let wanted = query.topic {
            guard topic == wanted || ((kind == .subscribed || kind == .unsubscribed) && detail == wanted) else { return false }
        }
        if let project = query.projectId {
            guard projectId == project || (projectId == nil && (kind == .clockAdvanced || detail == project)) else { return false }
        }
        return true
    }
}
