// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

extension FCMEmu.Bench {
    /// Export and import of a big world: `snapshotDevices` offline devices, each storing
    /// `snapshotMessages` topic messages (one shared message per send, as a fan-out stores them).
    func snapshotRoundTrip() throws {
        let scratch = FilePaths.temporaryDirectory + "fcm-emu-bench-snapshot-\(getpid())"
        try? FileManager.default.removeItem(atPath: scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let baseline = Memory.residentBytes()
        let buildStart = ContinuousClock.now
        var original: Emulator? = Emulator()
        guard let emulator = original else { return }
        let spec = DeviceSpec(platform: .android, appId: "com.example.app", state: .offline, topics: ["bench"])
        for _ in 0..<snapshotDevices { _ = try emulator.createDevice(spec, projectId: DemoProject.id) }
        for i in 0..<snapshotMessages {
            let content = MessageContent(data: [("n", String(i))], ttlSeconds: 86_400)
            _ = try emulator.send(SendRequest(target: .topic("bench"), content: content, api: .v1), from: DemoProject.id)
        }
        let world = Memory.residentBytes() - baseline
        print(
            "snapshot: world of \(snapshotDevices) offline devices × \(snapshotMessages) stored messages built in"
                + " \((ContinuousClock.now - buildStart).seconds.fixed(1)) s; resident +\((Double(world) / 1_048_576).fixed(0)) MiB")

        let options = SnapshotOptions(emulatorVersion: FCMEmuVersion.current)
        let peak = PeakMemory()
        let exportStart = ContinuousClock.now
        let manifest = try peak.watch { try emulator.exportSnapshot(to: scratch + "/snap", options: options) }
        let exportTime = (ContinuousClock.now - exportStart).seconds
        let extra = peak.peak - baseline - world
        // The ratio says something only when the world's own growth was measured: memory freed
        // by the figures before can hold a small world without the resident size moving.
        let ratio =
            world >= 16 << 20 ? "\((Double(peak.peak - baseline) / Double(world)).fixed(2))× the world" : "the world too small to compare"
        print(
            "snapshot: export \(exportTime.fixed(2)) s, \((Double(manifest.totalBytes) / 1_048_576).fixed(0)) MiB on disk (\(sizes(manifest)));"
                + " peak resident during export +\((Double(max(0, extra)) / 1_048_576).fixed(0)) MiB over the world (\(ratio))")
        original = nil

        let before = Memory.residentBytes()
        let copy = Emulator(clock: .virtual(start: Instant(millis: 0)))
        let importStart = ContinuousClock.now
        try copy.importSnapshot(from: scratch + "/snap", clock: .snapshot)
        let importTime = (ContinuousClock.now - importStart).seconds
        print(
            "snapshot: import \(importTime.fixed(2)) s (\(copy.worldImage().deviceSlotCount) devices, \(copy.clockStatus.pendingTimers) timers);"
                + " resident after import +\((Double(Memory.residentBytes() - before) / 1_048_576).fixed(0)) MiB")
    }

    private func sizes(_ manifest: SnapshotManifest) -> String {
        // Files of a MiB or more by name; a small world's are all smaller.
        let big = manifest.files.filter { $0.entry.bytes > 1 << 20 }.map { "\($0.name) \($0.entry.bytes >> 20) MiB" }
        return big.isEmpty ? "each under 1 MiB" : big.joined(separator: ", ")
    }
}

/// The highest resident size seen while a body runs, sampled every few milliseconds.
final class PeakMemory: Sendable {
    private let highest = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)

    var peak: Int { highest.load(ordering: .relaxed) }

    func watch<R>(_ body: () throws -> R) rethrows -> R {
        highest.store(Memory.residentBytes(), ordering: .relaxed)
        running.store(true, ordering: .relaxed)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [self] in
            while running.load(ordering: .relaxed) {
                let now = Memory.residentBytes()
                if now > highest.load(ordering: .relaxed) { highest.store(now, ordering: .relaxed) }
                usleep(5_000)
            }
            done.signal()
        }
        defer {
            running.store(false, ordering: .relaxed)
            done.wait()
        }
        return try body()
    }
}
