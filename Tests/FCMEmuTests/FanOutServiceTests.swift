// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
@testable import fcm_emu
import Testing

/// serve's fan-out worker: on a wall clock a topic send returns at once and the worker delivers.
@Suite("The fan-out worker")
struct FanOutServiceTests {
    @Test func aWallClockFanOutIsTheWorkersToFinish() async throws {
        let emulator = Emulator(clock: .wall(wallMillis: { Instant.virtualEpoch.millis }))
        let service = FanOutService(emulator: emulator)
        // More subscribers than the send itself dispatches (its first chunk).
        var devices: [String] = []
        for _ in 0..<(FanOut.chunk + 2) {
            let device = try emulator.createDevice(
                DeviceSpec(platform: .android, appId: "com.example.app", state: .foreground, topics: ["news"]), projectId: DemoProject.id)
            devices.append(device.token)
        }
        let topic = SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .v1)
        _ = try emulator.send(topic, from: DemoProject.id)
        #expect(emulator.isFanningOut, "the send returned; the worker has the fan-out")
        let worker = Task { await service.run() }
        await EventWaits.until(emulator) { !$0.isFanningOut }
        worker.cancel()
        for token in [devices[0], devices[devices.count - 1]] { #expect(try emulator.inboxCount(token, projectId: DemoProject.id) == 1) }
    }
}
