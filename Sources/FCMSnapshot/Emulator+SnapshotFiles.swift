// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Foundation

extension Emulator {
    /// Writes the world as it is now to `directory`, atomically: the snapshot is written to a
    /// sibling temporary directory and renamed into place, so a crash or a full disk never leaves
    /// a half-written snapshot where a whole one was. The lock is held only for the O(1) copy.
    @discardableResult
    public func exportSnapshot(to directory: String, options: SnapshotOptions) throws -> SnapshotManifest {
        let image = worldImage()
        let fm = FileManager.default
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty { try fm.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        let temporary = directory + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try fm.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        do {
            let manifest = try SnapshotWriter.write(image, to: temporary, options: options)
            try Self.replace(directory, with: temporary)
            return manifest
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Replaces the world with the snapshot in `directory`. Everything is read and checked first;
    /// a snapshot refused at any line leaves the running world untouched.
    @discardableResult
    public func importSnapshot(from directory: String, clock: SnapshotClock) throws(SnapshotError) -> SnapshotManifest {
        let (image, manifest) = try SnapshotReader.read(directory: directory)
        restore(image, clock: clock)
        return manifest
    }

    /// Moves `temporary` to `final`; an older snapshot at `final` is moved aside first and removed
    /// after, so one of the two is always whole.
    static func replace(_ final: String, with temporary: String) throws {
        let fm = FileManager.default
        guard fm.fileExists(atPath: final) else {
            try fm.moveItem(atPath: temporary, toPath: final)
            return
        }
        let old = final + ".old-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try fm.moveItem(atPath: final, toPath: old)
        try fm.moveItem(atPath: temporary, toPath: final)
        try? fm.removeItem(atPath: old)
    }
}
