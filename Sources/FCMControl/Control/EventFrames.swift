// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Synchronization

/// The SSE frames of recent events, encoded once for every stream that sends them: each stream
/// encoding each event for itself made 1,000 streams cost a send 68× its time.
///
/// A fixed ring of slots keyed by sequence number, so it holds at most `slots` frames (an event's
/// frame is a few hundred bytes; a message's payload is at most 4 KiB). A frame is encoded under
/// the slot's lock by the first reader that needs it; the others wait that long and reuse it.
/// A page from another log (a reset or an import; `EventPage.generation`) never reuses a frame.
final class EventFrames: Sendable {
    private struct Frame: Sendable {
        let generation: Int
        let sequence: Int
        let bytes: [UInt8]
    }

    private final class Stripe: Sendable {
        let frames = Mutex([Frame?](repeating: nil, count: EventFrames.slots / EventFrames.stripeCount))
    }

    static let slots = 4096
    static let stripeCount = 64
    /// Slots, striped over several locks so the loops' streams seldom wait for each other.
    private let stripes: [Stripe]
    /// Frames encoded so far: tests check that many streams cost one encoding per event.
    let encodings = Atomic<Int>(0)

    init() {
        stripes = (0..<Self.stripeCount).map { _ in Stripe() }
    }

    /// `id:` and `data:` lines of one event, from the ring or encoded now.
    func frame(_ item: EventPage.Item, generation: Int) -> [UInt8] {
        let sequence = item.event.sequence
        let slot = sequence & (Self.slots - 1)
        return stripes[slot % Self.stripeCount].frames.withLock { frames in
            let index = slot / Self.stripeCount
            if let frame = frames[index], frame.sequence == sequence, frame.generation == generation { return frame.bytes }
            let bytes = Self.encode(item)
            encodings.add(1, ordering: .relaxed)
            frames[index] = Frame(generation: generation, sequence: sequence, bytes: bytes)
            return bytes
        }
    }

    private static func encode(_ item: EventPage.Item) -> [UInt8] {
        let json = ControlJSON.event(item.event, project: item.projectId)
        // The encoder escapes line breaks inside strings, so one event is one data line.
        return Array("id: \(item.event.sequence)\ndata: \(json.encoded())\n\n".utf8)
    }
}
