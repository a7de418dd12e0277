// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMSnapshot
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where and how the control API keeps snapshots.
public struct SnapshotConfiguration: Sendable {
    /// The folder of named snapshots (`<state dir>/snapshots`); nil: only tar export and import.
    public var root: String?
    /// Written into each manifest.
    public var emulatorVersion: String
    /// Which clock an import resumes on, unless the request says.
    public var clock: SnapshotClock

    public init(root: String? = nil, emulatorVersion: String = FCMEmuVersion.current, clock: SnapshotClock = .snapshot) {
        self.root = root
        self.emulatorVersion = emulatorVersion
        self.clock = clock
    }
}

/// `POST /emulator/v1:export` and `POST /emulator/v1:import` (README, "Snapshots"). Snapshots are
/// named, never placed: a name matches `SnapshotNames.pattern` and lives under the root folder,
/// so no peer can make the emulator read or write a path of its choosing.
struct SnapshotRoutes: Sendable {
    let emulator: Emulator
    let credentials: FrontCredentials
    let configuration: SnapshotConfiguration

    func export(_ request: HTTPRequest) throws(FCMError) -> HTTPResponse {
        let body = try ControlBody(request, allowed: ["name", "include"])
        var include: Set<SnapshotManifest.Part> = []
        for part in try body.strings("include") ?? [] {
            guard let value = SnapshotManifest.Part(rawValue: part) else {
                throw FCMError(.invalidArgument, "include names 'events' or 'inboxes', not '\(part)'", field: "include")
            }
            include.insert(value)
        }
        let options = SnapshotOptions(include: include, emulatorVersion: configuration.emulatorVersion)
        if wantsTar(request) {
            let bytes = try withTemporaryDirectory { directory throws(FCMError) -> [UInt8] in
                _ = try run { try credentials.exportSnapshot(of: emulator, to: directory + "/snapshot", options: options) }
                return try run { try SnapshotTar.archive(directory: directory + "/snapshot") }
            }
            return HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/x-tar"), ("Content-Disposition", "attachment; filename=\"fcm-emu-snapshot.tar\"")],
                body: bytes)
        }
        let (name, path) = try namedPath(try body.string("name"))
        let manifest = try run { try credentials.exportSnapshot(of: emulator, to: path, options: options) }
        return ControlJSON.response(.object([("name", .string(name)), ("manifest", manifest.json)]))
    }

    func `import`(_ request: HTTPRequest) throws(FCMError) -> HTTPResponse {
        // The declared type alone says what the body is: `?format=tar` on a text/plain body was a
        // preflight-free import from any page (ControlContentType refuses it before this runs).
        let isTar = ControlContentType.mediaType(request) == ControlContentType.tar
        var clock = configuration.clock
        if let text = request.queryValue("clock") {
            guard let value = SnapshotClock(rawValue: text) else {
                throw FCMError(.invalidArgument, "clock is 'snapshot' or 'wall'", field: "clock")
            }
            clock = value
        }
        let manifest: SnapshotManifest
        if isTar {
            let body = request.body
            manifest = try withTemporaryDirectory { directory throws(FCMError) -> SnapshotManifest in
                try run { try SnapshotTar.extract(body, into: directory) }
                return try run { try credentials.importSnapshot(into: emulator, from: directory, clock: clock) }
            }
        } else {
            let body = try ControlBody(request, allowed: ["name", "clock"])
            if let text = try body.string("clock") {
                guard let value = SnapshotClock(rawValue: text) else {
                    throw FCMError(.invalidArgument, "clock is 'snapshot' or 'wall'", field: "clock")
                }
                clock = value
            }
            let (name, path) = try namedPath(try body.string("name"))
            guard FileManager.default.fileExists(atPath: path) else {
                throw FCMError(.notFound, "No snapshot named '\(name)'", field: "name")
            }
            manifest = try run { try credentials.importSnapshot(into: emulator, from: path, clock: clock) }
        }
        return ControlJSON.response(.object([("clock", .string(emulator.now.iso8601)), ("manifest", manifest.json)]))
    }

    private func wantsTar(_ request: HTTPRequest) -> Bool {
        request.queryValue("format") == "tar" || request.header("Accept")?.lowercased().contains("application/x-tar") == true
    }

    private func namedPath(_ name: String?) throws(FCMError) -> (String, String) {
        guard let name else { throw FCMError(.invalidArgument, "Field 'name' is required (or ask for a tar)", field: "name") }
        guard SnapshotNames.isValid(name) else {
            throw FCMError(.invalidArgument, "A snapshot name matches \(SnapshotNames.pattern)", field: "name")
        }
        guard let root = configuration.root else {
            throw FCMError(.conflict, "This emulator has no snapshot folder (serve --state-dir); use a tar instead", field: "name")
        }
        return (name, root + "/" + name)
    }

    /// Runs file work, turning its failures into the control API's errors.
    private func run<R>(_ body: () throws -> R) throws(FCMError) -> R {
        do {
            return try body()
        } catch let error as SnapshotError {
            throw FCMError(.invalidArgument, "Snapshot refused: \(error.description)", field: error.file)
        } catch let error as FCMError {
            throw error
        } catch {
            // Out of descriptors, memory or disk: the server's trouble, worth a retry (503).
            if SnapshotIOError.exhaustion(in: error) != nil {
                throw FCMError(.unavailable, "Snapshot failed, the server ran short: \(error)", retryAfterSeconds: 1)
            }
            if let io = error as? SnapshotIOError { throw FCMError(.internalError, "Snapshot failed: \(io)") }
            throw FCMError(.internalError, "Snapshot failed: \(FilePaths.reason(error))")
        }
    }

    private func withTemporaryDirectory<R>(_ body: (String) throws(FCMError) -> R) throws(FCMError) -> R {
        let directory = FilePaths.temporaryDirectory + "fcm-emu-snapshot-\(UUID().uuidString)"
        try run { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try body(directory)
    }
}
