// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport
import NIOCore
import Synchronization

/// One subscriber of `events:stream`: a cursor into the event log and the SSE frames it reads
/// from there (https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// It holds no queue: a reader that does not read keeps its place and nothing else. It reads the
/// newest events from the emulator's shared window (`EventBroadcast`), filtering them itself; when
/// it is behind the window, or the window cannot serve it, it reads the log, and when the log's
/// ring (`maxEvents`, `maxEventBytes`) overwrote events it had not read, it is told so in a
/// `lagged` frame with how many it missed, then goes on from the oldest kept event.
final class EventStreamReader: Sendable {
    private struct Place: Sendable {
        var cursor: Int
        /// The log the cursor points into; unknown (-1) until the first read of the log.
        var generation = -1
        /// Read the log on every read: a token filter (it may name a device later), or a project
        /// that was deleted (its reads fail, as they did before).
        var readsLog: Bool
    }

    private let emulator: Emulator
    private let query: EventQuery
    private let broadcast: EventBroadcast
    private let frames: EventFrames
    private let place: Mutex<Place>
    /// Events per read, and events looked at per read: one read is one short hold of the world lock.
    static let pageEvents = 256
    static let pageScan = 16_384
    /// Bytes of frames per read (after the frame that passes it): one write.
    static let pageBytes = 64 << 10

    init(emulator: Emulator, query: EventQuery, cursor: Int, broadcast: EventBroadcast, frames: EventFrames) {
        self.emulator = emulator
        self.query = query
        self.broadcast = broadcast
        self.frames = frames
        self.place = Mutex(Place(cursor: cursor, readsLog: query.token != nil))
    }

    /// The first frame, `ready`: the reconnection delay, and the position as its `id`, so a client
    /// that drops before the first event still resumes from where it began. It carries data on
    /// purpose: clients such as httpx-sse hand on a frame without data as an empty event.
    func opening(reconnectMillis: Int) -> [UInt8] {
        let start = place.withLock { $0.cursor }
        return Array("retry: \(reconnectMillis)\nevent: ready\nid: \(start - 1)\ndata: {\"next\":\(start)}\n\n".utf8)
    }

    /// Wakes `wake` when events were logged (on `loop`, with the other streams of that loop).
    func watch(on loop: (any EventLoop)?, _ wake: @escaping @Sendable () -> Void) -> StreamWatch {
        broadcast.subscribe(on: loop, wake)
    }

    /// The next frames and whether more may follow at once.
    func next() -> (bytes: [UInt8], more: Bool) {
        place.withLock { place in
            if !place.readsLog,
                case .frames(let window, let next, let more) = broadcast.read(
                    from: place.cursor, generation: place.generation, maxEvents: Self.pageEvents, maxBytes: Self.pageBytes)
            {
                var bytes: [UInt8] = []
                for frame in window where frame.matches(query, device: query.deviceId) {
                    bytes += frame.bytes
                    if frame.kind == .projectDeleted, let project = query.projectId, frame.detail == project { place.readsLog = true }
                }
                place.cursor = next
                return (bytes, more)
            }
            return readLog(&place)
        }
    }

    /// A page of the log itself, under the world's lock.
    private func readLog(_ place: inout Place) -> (bytes: [UInt8], more: Bool) {
        broadcast.logReads.add(1, ordering: .relaxed)
        let page: EventPage
        do throws(FCMError) {
            page = try emulator.eventPage(from: place.cursor, matching: query, maxScan: Self.pageScan, maxEvents: Self.pageEvents)
        } catch {
            // The project was deleted under the stream: nothing more can match.
            return ([], false)
        }
        var bytes: [UInt8] = []
        if page.missed > 0 { bytes += Array("event: lagged\ndata: {\"missed\":\(page.missed)}\n\n".utf8) }
        place.generation = page.generation
        for item in page.events {
            // One write stays near `pageBytes` (256 events of big messages were megabytes): the
            // rest is read again next time.
            if bytes.count >= Self.pageBytes {
                place.cursor = item.event.sequence
                return (bytes, true)
            }
            bytes += frames.frame(item, generation: page.generation)
        }
        let more = page.next > place.cursor && (page.events.count == Self.pageEvents || page.next - place.cursor >= Self.pageScan)
        place.cursor = page.next
        return (bytes, more)
    }

    /// A comment line: every SSE client skips it, and it keeps proxies and idle timers from closing
    /// a quiet stream.
    func heartbeat() -> [UInt8] { Array(": heartbeat\n\n".utf8) }
}
