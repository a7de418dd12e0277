// SPDX-License-Identifier: Apache-2.0

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `onSignal` once on SIGINT or SIGTERM, for a clean shutdown.
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ onSignal: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "fcm-emu.signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: onSignal)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
