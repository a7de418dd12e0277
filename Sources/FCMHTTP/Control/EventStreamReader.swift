// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Synchronization

/// One subscriber of `events:stream`: a cursor into the event log and the SSE frames it reads
/// from there (https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// It holds no queue: a reader that does not read keeps its place and nothing else, and when the
/// log's ring (`maxEvents`) overwrites events it had not read, it is told so in a `lagged` frame
/// with how many it missed, then goes on from the oldest kept event.
final class EventStreamReader: Sendable {
    private let emulator: Emulator
    private let query: EventQuery
    private let frames: EventFrames
    private let cursor: Mutex<Int>
    /// Events per read, and events looked at per read: one read is one short hold of the world lock.
    static let pageEvents = 256
    static let pageScan = 16_384

    init(emulator: Emulator, query: EventQuery, cursor: Int, frames: EventFrames) {
        self.emulator = emulator
        self.query = query
        self.frames = frames
        self.cursor = Mutex(cursor)
    }

    /// The first frame, `ready`: the reconnection delay, and the position as its `id`, so a client
    /// that drops before the first event still resumes from where it began. It carries data on
    /// purpose: clients such as httpx-sse hand on a frame without data as an empty event.
    func opening(reconnectMillis: Int) -> [UInt8] {
        let start = cursor.withLock { $0 }
        return Array("retry: \(reconnectMillis)\nevent: ready\nid: \(start - 1)\ndata: {\"next\":\(start)}\n\n".utf8)
    }

    /// The next frames and whether more may follow at once.
    func next() -> (bytes: [UInt8], more: Bool) {
        cursor.withLock { cursor in
            let page: EventPage
            do throws(FCMError) {
                page = try emulator.eventPage(from: cursor, matching: query, maxScan: Self.pageScan, maxEvents: Self.pageEvents)
            } catch {
                // The project was deleted under the stream: nothing more can match.
                return ([], false)
            }
            var bytes: [UInt8] = []
            if page.missed > 0 { bytes += Array("event: lagged\ndata: {\"missed\":\(page.missed)}\n\n".utf8) }
            for item in page.events { bytes += frames.frame(item, generation: page.generation) }
            let more = page.next > cursor && (page.events.count == Self.pageEvents || page.next - cursor >= Self.pageScan)
            cursor = page.next
            return (bytes, more)
        }
    }

    /// A comment line: every SSE client skips it, and it keeps proxies and idle timers from closing
    /// a quiet stream.
    func heartbeat() -> [UInt8] { Array(": heartbeat\n\n".utf8) }
}
