// SPDX-License-Identifier: Apache-2.0

import FCMCore
import ServiceLifecycle

/// Finishes topic and condition fan-outs on a wall clock, a chunk per hold of the world's lock
/// (FanOut.swift), so that no event loop waits for a million deliveries and other calls get the
/// lock between chunks. The emulator wakes it whenever fan-outs are queued; wakes that come while
/// it works fold into one. It stops between chunks when the group shuts down: what is left is in
/// the world, so the export keeps it and an import finishes it.
final class FanOutService: Service {
    private let emulator: Emulator
    private let wakes: AsyncStream<Void>

    /// Takes over `emulator`'s fan-outs at once: a wake before the group runs waits for `run`.
    init(emulator: Emulator) {
        self.emulator = emulator
        let (wakes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakes = wakes
        emulator.finishFanOuts { continuation.yield() }
    }

    func run() async {
        await cancelWhenGracefulShutdown { [emulator, wakes] in
            for await _ in wakes {
                while !Task.isCancelled, emulator.continueFanOutChunk() {
                    // Let the other tasks of the pool run between chunks.
                    await Task.yield()
                }
                if Task.isCancelled { return }
            }
        }
    }
}
