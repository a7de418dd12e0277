// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

/// A device's fields are laid out without padding and the seldom-set ones kept out of line, so a
/// million idle devices fit in 256 bytes each (docs/benchmarks.md, "Memory per device"); the
/// out-of-line fields keep value semantics.
@Suite struct DeviceLayoutTests {
    private func device() -> Device {
        Device(
            id: 1, projectIndex: 0, platform: .android, name: nil, appId: "a", state: .foreground, createdAt: .virtualEpoch,
            lastConnectedAt: .virtualEpoch, lastSeenAt: .virtualEpoch)
    }

    @Test func anIdleDeviceIs104Bytes() {
        #expect(MemoryLayout<Device>.size == 104)
        #expect(MemoryLayout<Device?>.stride == 104)
    }

    @Test func seldomFieldsReadBackAndCopiesStayApart() {
        var d = device()
        #expect(d.name == nil && d.extraSenders.isEmpty && d.lastInactiveDiscardAt == nil && !d.deletedSignalOwed)
        #expect(d.tray.isEmpty && d.webPush == nil && d.receiver == nil)
        d.name = "phone"
        d.extraSenders = ["123"]
        d.deletedSignalOwed = true
        d.lastInactiveDiscardAt = .virtualEpoch
        let copy = d
        d.name = nil
        d.extraSenders = []
        d.deletedSignalOwed = false
        d.lastInactiveDiscardAt = nil
        #expect(d.name == nil && d.extraSenders.isEmpty && !d.deletedSignalOwed && d.lastInactiveDiscardAt == nil)
        #expect(
            copy.name == "phone" && copy.extraSenders == ["123"] && copy.deletedSignalOwed && copy.lastInactiveDiscardAt == .virtualEpoch)
    }

    /// The tray changes where it lies when posted to, and a copy of the device keeps its own.
    @Test func aTrayChangedInPlaceLeavesCopiesAlone() throws {
        let w = Harness()
        let d = try w.device(state: .background)
        _ = try w.sendNotification(d)
        _ = try w.sendNotification(d, title: "again")
        let counts = w.emu.withWorld { world -> (Int, Int) in
            guard var copy = world.devices[Int(d.id)] else { return (-1, -1) }
            copy.tray.removeLast()
            return (copy.tray.count, world.devices[Int(d.id)]?.tray.count ?? -1)
        }
        #expect(counts == (1, 2))
    }
}
