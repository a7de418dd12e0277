// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Synchronization

/// Waits on the emulator's events, not on time: the condition is read again whenever an event
/// is logged.
enum EventWaits {
    /// Returns once `condition` holds of `emulator`.
    static func until(_ emulator: Emulator, _ condition: @escaping @Sendable (Emulator) -> Bool) async {
        let watch = Mutex<EventWatch?>(nil)
        let resumed = Atomic<Bool>(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let check: @Sendable () -> Void = {
                guard condition(emulator), !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
                continuation.resume()
            }
            watch.withLock { $0 = emulator.watchEvents(.everything, check) }
            check()
        }
        watch.withLock { $0?.cancel() }
    }
}
