// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMSnapshot
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging

/// What `serve` and `exec` do with snapshots: import at start, autosave, export at exit.
enum SnapshotLifecycle {
    /// Replaces the new emulator's world with `--import`'s snapshot; a refused one stops start-up.
    static func importAtStart(_ emulator: Emulator, _ credentials: FrontCredentials, _ options: ServeOptions, logger: Logger) throws {
        guard let directory = options.importDirectory else { return }
        do {
            let manifest = try credentials.importSnapshot(into: emulator, from: directory, clock: options.fronts.snapshots.clock)
            logger.info("Imported \(directory) (snapshot of \(manifest.clock.iso8601), clock \(options.fronts.snapshots.clock.rawValue))")
        } catch {
            throw ConfigError("--import \(directory): \(error.description)")
        }
    }

    /// Mends what a crash in the middle of replacing a snapshot left (`SnapshotReplacement`): in
    /// the snapshots folder and beside `--import`'s and `--export-on-exit`'s directories.
    static func recover(_ options: ServeOptions, logger: Logger) {
        var folders: [String] = []
        if let root = options.fronts.snapshots.root { folders.append(root) }
        for directory in [options.importDirectory, options.exportOnExit, autosaveDirectory(options)].compactMap({ $0 }) {
            let parent = FilePaths.parent(directory)
            folders.append(parent.isEmpty ? "." : parent)
        }
        var seen = Set<String>()
        for folder in folders where seen.insert(folder).inserted {
            for line in SnapshotReplacement.recover(in: folder) { logger.warning("Snapshots: \(line) in \(folder)") }
        }
    }

    /// Writes `--export-on-exit`'s snapshot; false when it failed (logged), so `serve` can end
    /// with a non-zero status instead of pretending the world was saved.
    @discardableResult
    static func exportAtExit(_ running: RunningEmulator, _ options: ServeOptions, logger: Logger) -> Bool {
        guard let directory = options.exportOnExit else { return true }
        return export(running, options, to: directory, logger: logger)
    }

    /// Where autosave writes: the exit snapshot's directory, else `<state dir>/snapshots/autosave`.
    static func autosaveDirectory(_ options: ServeOptions) -> String? {
        options.exportOnExit ?? options.fronts.snapshots.root.map { $0 + "/autosave" }
            ?? options.fronts.stateDirectory.map { $0 + "/snapshots/autosave" }
    }

    /// The `autosave` service (`EmulatorServices.swift`), or nil when autosave is off.
    static func autosave(_ running: RunningEmulator, _ options: ServeOptions, logger: Logger) throws -> Autosave? {
        guard let seconds = options.autosaveSeconds else { return nil }
        guard let directory = autosaveDirectory(options) else {
            throw ConfigError("autosave needs --export-on-exit or a state directory to write to")
        }
        return Autosave(seconds: seconds) { _ = export(running, options, to: directory, logger: logger) }
    }

    @discardableResult
    private static func export(_ running: RunningEmulator, _ options: ServeOptions, to directory: String, logger: Logger) -> Bool {
        let started = Date()
        do {
            let manifest = try running.credentials.exportSnapshot(
                of: running.emulator, to: directory,
                options: SnapshotOptions(include: options.snapshotInclude, emulatorVersion: FCMEmuVersion.current))
            let millis = Int(Date().timeIntervalSince(started) * 1000)
            logger.info("Exported the world to \(directory) (\(manifest.totalBytes) bytes in \(millis) ms)")
            return true
        } catch {
            logger.error("Cannot export the world to \(directory): \(error)")
            return false
        }
    }
}
