// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Synchronization

/// Runs `side` on a thread of its own while `main` runs on the caller's, and returns both. A
/// snapshot's two big files (devices and timers) are independent, so export and import do one
/// per core: the 5-second target for a million devices is not reachable on one.
/// `side` finishes before this returns, whatever `main` did.
func alongside<Side: Sendable, Main, Failure: Error>(
    _ side: @escaping @Sendable () -> Side, _ main: () throws(Failure) -> Main
) throws(Failure) -> (side: Side?, main: Main) {
    let box = Mutex<Side?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global(qos: .userInitiated).async {
        let value = side()
        box.withLock { $0 = value }
        done.signal()
    }
    let result: Main
    do {
        result = try main()
    } catch {
        done.wait()
        throw error
    }
    done.wait()
    // The thread stores its value before it signals, so `side` is nil only if that ever changes.
    return (box.withLock { $0.take() }, result)
}
