// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write end of the pipe the signal handler writes to: `write(2)` is async-signal-safe
/// (POSIX.1-2017, 2.4.3 "Signal Actions"), so the handler does nothing else.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Runs `onSignal` on SIGINT or SIGTERM, for a clean shutdown.
///
/// A handler installed with `signal(2)` and a self-pipe, not a `DispatchSource`: on Linux,
/// libdispatch registers a signal source only after `resume()` returns, and a signal that comes
/// in between, while the disposition is SIG_IGN, was lost (a harness sending SIGTERM the moment
/// the banner was out left the emulator running).
final class ShutdownSignals: @unchecked Sendable {
    private let readEnd: Int32
    private let cancelled = NSLock()
    private var isCancelled = false

    init(_ onSignal: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            readEnd = -1
            return
        }
        readEnd = ends[0]
        signalPipeWriteEnd = ends[1]
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
        }
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n < 0, errno == EINTR { continue }
                guard n == 1 else { return }
                if !cancelled.withLock({ isCancelled }) { onSignal() }
            }
        }
        thread.name = "fcm-emu.signals"
        thread.start()
    }

    /// Later signals are ignored (as before: a second Ctrl-C does not cut the exit export short).
    func cancel() {
        cancelled.withLock { isCancelled = true }
    }
}
