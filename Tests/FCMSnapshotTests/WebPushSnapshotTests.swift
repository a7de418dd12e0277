// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// A web device's Web Push subscription survives a snapshot, and a key that is not one is refused
/// (docs/receivers.md, "Subscriptions").
@Suite struct WebPushSnapshotTests {
    private func source() throws -> (Emulator, DeviceInfo) {
        let emu = Emulator()
        // A valid uncompressed P-256 point: RFC 8291 §5's application server key.
        let key = Base64URLCodec.decode("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        var spec = DeviceSpec(platform: .web, appId: "https://localhost")
        spec.applicationServerKey = key
        return (emu, try emu.createDevice(spec, projectId: DemoProject.id))
    }

    @Test func theSubscriptionRoundTrips() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (emu, device) = try source()
        let subscription = try #require(device.webPush)
        try emu.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        let copy = Emulator()
        try copy.importSnapshot(from: scratch.sub("s"), clock: .snapshot)
        let restored = try #require(try copy.device(String(device.id), projectId: DemoProject.id).webPush)
        #expect(restored == subscription)
        #expect(restored.publicKey == subscription.publicKey)
    }

    @Test func aKeyThatIsNotOneIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let (emu, _) = try source()
        try emu.exportSnapshot(to: scratch.sub("s"), options: WorldFixture.options)
        var edited = 0
        try CorruptSnapshotTests.editLines(scratch.sub("s"), "devices.jsonl") { lines in
            for i in lines.indices where lines[i].contains("\"privateKey\":\"") {
                lines[i] = lines[i].replacingOccurrences(
                    of: #""privateKey":"[^"]*""#, with: #""privateKey":"\#(String(repeating: "_", count: 43))""#, options: .regularExpression)
                edited += 1
            }
        }
        try #require(edited == 1)
        let copy = Emulator()
        #expect(throws: SnapshotError.self) { try copy.importSnapshot(from: scratch.sub("s"), clock: .snapshot) }
    }
}
