// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMCore
import FCMJSON
import FCMScenario
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

extension FCMEmu {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the engine: memory per idle device, topic fan-out time, snapshot export and import.",
            discussion: """
                Runs in process on the virtual clock and prints figures; nothing listens. Build with `swift build -c \
                release` first for meaningful numbers:
                  .build/release/fcm-emu bench
                  .build/release/fcm-emu bench --devices 100000 --subscribers 100000
                  .build/release/fcm-emu bench --snapshot-only      # export/import of 1M devices × 10 stored messages
                  .build/release/fcm-emu bench --requests-only --api legacy
                  bench/instructions                               # instructions per send, v1, legacy, XMPP (callgrind)
                """
        )

        @Option(help: "Idle devices to register for the memory figure.")
        var devices = 1_000_000

        @Option(help: "Subscribers of the topic for the fan-out figures.")
        var subscribers = 1_000_000

        @Option(help: "Sends for the in-process request figure (no sockets).")
        var requests = 200_000

        @Option(
            help: """
                The API of the in-process request figure: v1 (messages:send), http1 (the same as bytes through the HTTP/1.1 \
                pipeline), legacy (/fcm/send) or xmpp (a CCS stanza).
                """
        )
        var api: RequestAPI = .v1

        @Flag(help: "Only the in-process request figure (what bench/instructions counts under callgrind).")
        var requestsOnly = false

        @Option(help: "Steps of the scenario for the scenario-runner figure.")
        var scenarioSteps = 10_000

        @Option(help: "Offline devices in the world of the snapshot figures.")
        var snapshotDevices = 1_000_000

        @Option(help: "Stored messages per device in the world of the snapshot figures.")
        var snapshotMessages = 10

        @Flag(help: "Only the snapshot figures (export and import time, size, memory).")
        var snapshotOnly = false

        func run() throws {
            guard devices > 0, subscribers > 0 else { throw ValidationError("--devices and --subscribers must be positive") }
            print("fcm-emu bench \(FCMEmuVersion.current) (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
            #if DEBUG
                // A debug build is unoptimised and checks more: its figures are several times a release build's.
                let warning =
                    "warning: this is a debug build; its figures are not representative. Build with `swift build -c release` "
                    + "and run .build/release/fcm-emu bench\n"
                StandardStreams.writeError(warning)
            #endif
            if snapshotOnly { return try snapshotRoundTrip() }
            // First, on a fresh heap: after the sends, the devices' arrays reused the pages those
            // had freed, and the figure moved between 104 and 225 bytes a device from run to run.
            if !requestsOnly { try memoryPerDevice() }
            try inProcessSends()
            if requestsOnly { return }
            try scenarioRun()
            try fanOut(state: .foreground, label: "online, delivered")
            try fanOut(state: .offline, label: "offline, stored with TTL timers")
            try sendsDuringFanOut()
            try snapshotRoundTrip()
        }

        private func memoryPerDevice() throws {
            let before = Memory.residentBytes()
            let start = ContinuousClock.now
            var emulator: Emulator? = Emulator()
            for _ in 0..<devices {
                _ = try emulator?.createDevice(
                    DeviceSpec(platform: .android, appId: "com.example.app", state: .foreground), projectId: DemoProject.id)
            }
            let elapsed = ContinuousClock.now - start
            let after = Memory.residentBytes()
            let perDevice = Double(after - before) / Double(devices)
            print(
                "memory:  \(devices) idle devices registered in \(elapsed.seconds.fixed(2)) s;"
                    + " resident +\((Double(after - before) / 1_048_576).fixed(1)) MiB = \(perDevice.fixed(0)) bytes/device (event log included)")
            emulator = nil
        }

        private func fanOut(state: DeviceState, label: String) throws {
            let emulator = Emulator()
            let spec = DeviceSpec(platform: .android, appId: "com.example.app", state: state, topics: ["bench"])
            for _ in 0..<subscribers { _ = try emulator.createDevice(spec, projectId: DemoProject.id) }
            let request = SendRequest(target: .topic("bench"), content: MessageContent(data: [("score", "3-0")]), api: .v1)
            let start = ContinuousClock.now
            let outcome = try emulator.send(request, from: DemoProject.id)
            let elapsed = ContinuousClock.now - start
            print(
                "fan-out: one topic message to \(outcome.groupSuccess) subscribers (\(label)) in \(elapsed.seconds.fixed(3)) s"
                    + " = \((Double(outcome.groupSuccess) / elapsed.seconds / 1e6).fixed(2)) M recipients/s")
        }
    }
}

extension FCMEmu.Bench {
    /// The latency of token sends while a topic message reaches every subscriber, on a wall clock
    /// as `serve` runs: the fan-out goes in chunks, so no send waits long for the lock (the
    /// target: p99 under 50 ms).
    private func sendsDuringFanOut() throws {
        let emulator = Emulator(clock: .wall(wallMillis: { Int64(Date().timeIntervalSince1970 * 1000) }))
        // serve's worker, here in a task of its own: this thread sends while it fans out.
        let fanOuts = FanOutService(emulator: emulator)
        let worker = Task { await fanOuts.run() }
        defer { worker.cancel() }
        let spec = DeviceSpec(platform: .android, appId: "com.example.app", topics: ["bench"])
        for _ in 0..<subscribers { _ = try emulator.createDevice(spec, projectId: DemoProject.id) }
        let device = try emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let single = SendRequest(target: .token(device.token), content: MessageContent(data: [("k", "v")]), api: .v1)
        let topic = SendRequest(target: .topic("bench"), content: MessageContent(data: [("score", "3-0")]), api: .v1)
        let start = ContinuousClock.now
        _ = try emulator.send(topic, from: DemoProject.id)
        var latencies: [Double] = []
        while emulator.isFanningOut {
            let sent = ContinuousClock.now
            _ = try emulator.send(single, from: DemoProject.id)
            latencies.append((ContinuousClock.now - sent).seconds * 1000)
        }
        let total = (ContinuousClock.now - start).seconds
        latencies.sort()
        let percentile = { (p: Double) in latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print(
            "fan-out: \(latencies.count) sends during a \(subscribers)-subscriber fan-out (\(total.fixed(2)) s):"
                + " p50 \(percentile(0.5).fixed(3)) ms, p99 \(percentile(0.99).fixed(3)) ms, max \((latencies.last ?? 0).fixed(2)) ms"
                + " (target p99 under 50 ms)")
    }
}

extension FCMEmu.Bench {
    /// A scenario of sends, clock moves, state changes and checks, parsed and run.
    private func scenarioRun() throws {
        var yaml = "devices:\n  - {name: pixel, platform: android}\nsteps:\n"
        let cycle = [
            "  - send: {message: {token: \"${pixel.token}\", data: {n: \"1\"}}}\n",
            "  - advance: 1s\n",
            "  - state: {device: pixel, to: background}\n",
            "  - check: {device: pixel, stored: 0, state: background}\n",
            "  - state: {device: pixel, to: foreground}\n",
        ]
        for i in 0..<scenarioSteps { yaml += cycle[i % cycle.count] }
        let start = ContinuousClock.now
        let result = ScenarioRunner.run(try ScenarioParser.parse(yaml, file: "bench.yaml"))
        let elapsed = ContinuousClock.now - start
        guard result.passed else { throw RuntimeFailure(ScenarioReport.line(result)) }
        print("scenario: \(scenarioSteps) steps parsed and run in \(elapsed.seconds.fixed(3)) s (target: under 1 s)")
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

enum Memory {
    /// Resident set size from /proc/self/statm (Linux); 0 elsewhere.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
