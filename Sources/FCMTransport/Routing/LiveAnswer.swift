// SPDX-License-Identifier: Apache-2.0

import FCMCore
import NIOCore
import Synchronization

/// An answer that is not complete when the route returns: the transport keeps the
/// request open and reads again each time the world logs events, instead of anyone polling.
/// In-process callers (tests, scenarios, batch parts) see the response it rides on, which holds
/// what there is now.
public enum LiveAnswer: Sendable {
    /// Answer once a condition holds, or at a wall-clock timeout with what there is.
    case wait(PendingAnswer)
    /// Server-Sent Events after a 200 head, until the client leaves or the server stops.
    case stream(StreamingBody)
}

public struct PendingAnswer: Sendable {
    /// Wall-clock milliseconds until `expire` answers, whatever the emulator's clock does: a
    /// paused clock must not hold a harness forever.
    public let timeoutMillis: Int64
    /// What a wake-up found: called on the request's own event loop, never by the thread that
    /// logged the event, and each call reads a bounded page of new events.
    public enum Progress: Sendable {
        /// The condition holds (or the read failed): this is the answer.
        case answer(HTTPResponse)
        /// Not yet; the next logged event that concerns it wakes it again.
        case waiting
        /// Not yet, and there is more to read already: call `check` again on a later loop turn.
        case readMore
    }

    /// How far the condition is, reading only what was logged since the last call.
    public let check: @Sendable () -> Progress
    /// The answer at the timeout.
    public let expire: @Sendable () -> HTTPResponse
    public let watch: @Sendable (@escaping @Sendable () -> Void) -> EventWatch
    /// Held while the request is open; counts toward `LiveRequests.maxWaits`.
    public let slot: LiveSlot

    package init(
        timeoutMillis: Int64, check: @escaping @Sendable () -> Progress, expire: @escaping @Sendable () -> HTTPResponse,
        watch: @escaping @Sendable (@escaping @Sendable () -> Void) -> EventWatch, slot: LiveSlot
    ) {
        self.timeoutMillis = timeoutMillis
        self.check = check
        self.expire = expire
        self.watch = watch
        self.slot = slot
    }
}

public struct StreamingBody: Sendable {
    /// Written right after the head.
    public let first: [UInt8]
    /// The next frames, and whether more may be read at once. Called only while the connection
    /// can write, so a reader that does not read holds a cursor and nothing else.
    public let next: @Sendable () -> (bytes: [UInt8], more: Bool)
    /// Written when nothing else was, so proxies and clients see the connection alive.
    public let heartbeat: @Sendable () -> [UInt8]
    public let heartbeatMillis: Int64
    /// The last frame, when the server stops.
    public let farewell: [UInt8]
    /// Calls the closure on the loop given (at once when nil) whenever events were logged: one
    /// task per loop for all its streams (the control API's `EventBroadcast`).
    public let watch: @Sendable ((any EventLoop)?, @escaping @Sendable () -> Void) -> StreamWatch
    /// Held while the stream is open; counts toward `LiveRequests.maxStreams`.
    public let slot: LiveSlot

    package init(
        first: [UInt8], next: @escaping @Sendable () -> (bytes: [UInt8], more: Bool), heartbeat: @escaping @Sendable () -> [UInt8],
        heartbeatMillis: Int64, farewell: [UInt8],
        watch: @escaping @Sendable ((any EventLoop)?, @escaping @Sendable () -> Void) -> StreamWatch, slot: LiveSlot
    ) {
        self.first = first
        self.next = next
        self.heartbeat = heartbeat
        self.heartbeatMillis = heartbeatMillis
        self.farewell = farewell
        self.watch = watch
        self.slot = slot
    }
}

/// The requests kept open (streams, waits, and calls a `hold` fault leaves unanswered): bounded in
/// number, and ended together when the server stops.
public final class LiveRequests: Sendable {
    public enum Kind: Sendable { case stream, wait, hold }

    public let maxStreams: Int
    public let maxWaits: Int
    /// Calls held unanswered at once, over every connection (docs/faults.md, docs/limits.md). Over
    /// HTTP/2 one connection holds at most its 100 concurrent streams; the rest is this bound.
    public let maxHolds: Int
    /// Bytes handed to stream connections: a test hook, to see that a subscriber that does not
    /// read is sent a bounded amount.
    let streamedBytes = Atomic<Int>(0)
    /// Wake-ups of a stream whose connection could take nothing more (a test hook).
    let streamStalls = Atomic<Int>(0)
    /// Told of each admission and release with how many of its kind are open then: tests await
    /// a held call's place and its release instead of sleeping. The server sets none.
    private let changeHook = Mutex<(@Sendable (Kind, Int) -> Void)?>(nil)
    private typealias State = (next: Int, streams: Int, waits: Int, holds: Int, enders: [Int: @Sendable () -> Void])
    private let state = Mutex<State>((0, 0, 0, 0, [:]))

    public init(maxStreams: Int = 1000, maxWaits: Int = 10_000, maxHolds: Int = 1000) {
        self.maxStreams = maxStreams
        self.maxWaits = maxWaits
        self.maxHolds = maxHolds
    }

    /// A slot, or nil when that kind is at its limit.
    public func admit(_ kind: Kind) -> LiveSlot? {
        let admitted: (id: Int, open: Int)? = state.withLock { s in
            switch kind {
            case .stream:
                guard s.streams < maxStreams else { return nil }
                s.streams += 1
            case .wait:
                guard s.waits < maxWaits else { return nil }
                s.waits += 1
            case .hold:
                guard s.holds < maxHolds else { return nil }
                s.holds += 1
            }
            s.next += 1
            return (s.next, Self.open(kind, in: s))
        }
        guard let admitted else { return nil }
        changeHook.withLock { $0 }?(kind, admitted.open)
        return LiveSlot(id: admitted.id, kind: kind, owner: self)
    }

    private static func open(_ kind: Kind, in s: State) -> Int {
        switch kind {
        case .stream: s.streams
        case .wait: s.waits
        case .hold: s.holds
        }
    }

    public var openStreams: Int { state.withLock { $0.streams } }
    public var openWaits: Int { state.withLock { $0.waits } }
    public var openHolds: Int { state.withLock { $0.holds } }

    /// Asks every open request to end now (streams send their farewell).
    public func endAll() {
        for end in state.withLock({ Array($0.enders.values) }) { end() }
    }

    fileprivate func onEnd(_ id: Int, _ end: @escaping @Sendable () -> Void) {
        state.withLock { $0.enders[id] = end }
    }

    package func onChange(_ hook: @escaping @Sendable (Kind, Int) -> Void) {
        changeHook.withLock { $0 = hook }
    }

    fileprivate func release(_ id: Int, _ kind: Kind) {
        let remaining = state.withLock { s in
            s.enders[id] = nil
            switch kind {
            case .stream: s.streams -= 1
            case .wait: s.waits -= 1
            case .hold: s.holds -= 1
            }
            return Self.open(kind, in: s)
        }
        changeHook.withLock { $0 }?(kind, remaining)
    }
}

/// One open request's place among `LiveRequests`; given back when released.
public final class LiveSlot: Sendable {
    let id: Int
    let kind: LiveRequests.Kind
    private let owner: LiveRequests

    fileprivate init(id: Int, kind: LiveRequests.Kind, owner: LiveRequests) {
        self.id = id
        self.kind = kind
        self.owner = owner
    }

    /// What the transport does when the server stops.
    public func onServerStop(_ end: @escaping @Sendable () -> Void) { owner.onEnd(id, end) }

    /// Counts bytes written to a stream's connection (`LiveRequests.streamedBytes`).
    func wrote(_ count: Int) { owner.streamedBytes.add(count, ordering: .relaxed) }

    func stalled() { owner.streamStalls.add(1, ordering: .relaxed) }

    deinit { owner.release(id, kind) }
}

/// A stream's registration with whatever wakes it; ends with `cancel()` or when released.
public final class StreamWatch: Sendable {
    private let end: Mutex<(@Sendable () -> Void)?>

    package init(_ end: @escaping @Sendable () -> Void) { self.end = Mutex(end) }

    public func cancel() { end.withLock { $0.take() }?() }

    deinit { cancel() }
}
