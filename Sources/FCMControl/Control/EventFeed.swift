// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Synchronization

/// What every event stream of one route table shares: recent events' SSE
/// frames, each encoded once, and the one window of new events they all read (one emulator per
/// route table), made by the first stream.
public final class EventFeed: Sendable {
    let frames = EventFrames()
    private let broadcasts = Mutex<EventBroadcast?>(nil)

    public init() {}

    func broadcast(for emulator: Emulator) -> EventBroadcast {
        broadcasts.withLock { b in
            if let b { return b }
            let made = EventBroadcast(emulator: emulator, frames: frames)
            b = made
            return made
        }
    }
}
