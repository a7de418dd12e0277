// SPDX-License-Identifier: Apache-2.0

import FCMCore
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

extension Emulator {
    /// Writes the world as it is now to `directory`, atomically and durably: the snapshot is
    /// written to a sibling temporary directory, fsynced and swapped into place
    /// (`SnapshotReplacement`), so a crash or a full disk never leaves a half-written snapshot, or
    /// none, where a whole one was. The lock is held only for the O(1) copy.
    @discardableResult
    package func exportSnapshot(to directory: String, options: SnapshotOptions) throws -> SnapshotManifest {
        let image = worldImage()
        let fm = FileManager.default
        let parent = FilePaths.parent(directory)
        if !parent.isEmpty { try fm.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        let temporary = SnapshotReplacement.temporaryPath(for: directory)
        guard mkdir(temporary, 0o700) == 0 else { throw SnapshotIOError("create", temporary, errno) }
        do {
            let manifest = try SnapshotWriter.write(image, to: temporary, options: options)
            try SnapshotReplacement.replace(directory, with: temporary)
            return manifest
        } catch let crash as SnapshotReplacement.Crash {
            throw crash  // a test's stand-in for a crash: leaves the disk as it is
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Replaces the world with the snapshot in `directory`. Everything is read and checked first;
    /// a snapshot refused at any line leaves the running world untouched.
    @discardableResult
    package func importSnapshot(from directory: String, clock: SnapshotClock) throws(SnapshotError) -> SnapshotManifest {
        let (image, manifest) = try SnapshotReader.read(directory: directory)
        restore(image, clock: clock)
        return manifest
    }
}
