// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// Replacing a snapshot is atomic and durable: a crash at any step leaves a whole snapshot at the
/// name (the old or the new), start-up recovery clears what the crash left, and concurrent
/// exports to one name all succeed. A fault hook stops the replacement
/// between its steps and leaves the disk as a crash there would.
@Suite(.serialized) struct SnapshotReplacementTests {
    static let options = SnapshotOptions(include: [], emulatorVersion: "test")

    static func world(devices: Int) throws -> Emulator {
        let emu = Emulator()
        for _ in 0..<devices { _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id) }
        return emu
    }

    static func deviceCount(importing path: String) throws -> Int {
        let emu = Emulator()
        try emu.importSnapshot(from: path, clock: .snapshot)
        return try emu.devices(projectId: DemoProject.id).page.count
    }

    static func leftovers(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
    }

    @Test(arguments: [SnapshotReplacement.Step.written, .swapped])
    func crashMidReplacementLeavesAWholeSnapshotAndRecoveryCleansUp(_ step: SnapshotReplacement.Step) throws {
        let scratch = try ScratchDirectory()
        defer {
            SnapshotReplacement.faultHook.withLock { $0 = nil }
            scratch.cleanup()
        }
        let name = scratch.sub("nightly")
        try Self.world(devices: 1).exportSnapshot(to: name, options: Self.options)
        SnapshotReplacement.faultHook.withLock {
            $0 = { at, path in if at == step && path == name { throw SnapshotReplacement.Crash() } }
        }
        #expect(throws: SnapshotReplacement.Crash.self) { try Self.world(devices: 2).exportSnapshot(to: name, options: Self.options) }
        SnapshotReplacement.faultHook.withLock { $0 = nil }

        // The name holds a whole snapshot: the old one before the swap, the new one after.
        #expect(try Self.deviceCount(importing: name) == (step == .written ? 1 : 2))
        #expect(try Self.leftovers(scratch.path).count == 1)
        let recovered = SnapshotReplacement.recover(in: scratch.path)
        #expect(recovered.count == 1)
        #expect(try Self.leftovers(scratch.path).isEmpty)
        #expect(try Self.deviceCount(importing: name) == (step == .written ? 1 : 2))
    }

    /// The old scheme's crash window (two renames, nothing at the name): recovery puts the old
    /// copy back and removes the new one.
    @Test func recoveryRestoresAnOldCopyWhenTheNameIsGone() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        // A process id no process has (beyond the kernel's pid_max).
        let dead = Int32.max - 1
        try Self.world(devices: 3).exportSnapshot(to: scratch.sub(".old-\(dead)-1a.nightly"), options: Self.options)
        try Self.world(devices: 4).exportSnapshot(to: scratch.sub(".tmp-\(dead)-2b.nightly"), options: Self.options)
        let recovered = SnapshotReplacement.recover(in: scratch.path)
        #expect(recovered.count == 2, "\(recovered)")
        #expect(try Self.deviceCount(importing: scratch.sub("nightly")) == 3)
        #expect(try Self.leftovers(scratch.path).isEmpty)
    }

    @Test func fortyConcurrentExportsToOneNameAllSucceed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let emu = try Self.world(devices: 5)
        let name = scratch.sub("shared")
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 40) { _ in
            do { try emu.exportSnapshot(to: name, options: Self.options) } catch { failures.add("\(error)") }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try Self.deviceCount(importing: name) == 5)
        #expect(try Self.leftovers(scratch.path).isEmpty)
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ s: String) { lock.withLock { list.append(s) } }
        var all: [String] { lock.withLock { list } }
    }
}
