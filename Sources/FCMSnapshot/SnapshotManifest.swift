// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// `manifest.json`: what a snapshot is and holds (docs/snapshot-manifest.schema.json).
package struct SnapshotManifest: Sendable, Equatable {
    package static let format = "fcm-emu-snapshot"
    /// The one format version this emulator writes and reads. A newer one is refused: its files
    /// may mean something this emulator cannot tell.
    package static let currentVersion = 1

    /// The files of format 1, in the order they are read (each may refer to those before it).
    static let requiredFiles = [
        "world.jsonl", "projects.jsonl", "messages.jsonl", "devices.jsonl", "tokens.jsonl", "topics.jsonl", "groups.jsonl",
        "timers.jsonl",
    ]
    static let eventsFile = "events.jsonl"
    /// The HTTP fronts' keys (service accounts, the access-token key), when they wrote any.
    static let credentialsFile = "credentials.jsonl"
    /// Every file a snapshot may hold besides `manifest.json`, in reading order.
    static let allFiles = requiredFiles + [eventsFile, credentialsFile]

    package enum Part: String, Sendable, CaseIterable {
        /// The event log (`events.jsonl`).
        case events
        /// What each device's app received (the `inbox` of each device line).
        case inboxes
    }

    package struct FileEntry: Sendable, Equatable {
        package var lines: Int
        package var bytes: Int
    }

    package var formatVersion: Int
    package var emulatorVersion: String
    package var clock: Instant
    package var include: [Part]
    package var files: [(name: String, entry: FileEntry)]

    package static func == (a: SnapshotManifest, b: SnapshotManifest) -> Bool {
        a.formatVersion == b.formatVersion && a.emulatorVersion == b.emulatorVersion && a.clock == b.clock && a.include == b.include
            && a.files.map(\.name) == b.files.map(\.name) && a.files.map(\.entry) == b.files.map(\.entry)
    }

    package var totalBytes: Int { files.reduce(0) { $0 + $1.entry.bytes } }

    /// The manifest as JSON, as `manifest.json` holds it.
    package var json: JSONValue {
        .object([
            ("format", .string(Self.format)), ("formatVersion", .int(formatVersion)), ("emulatorVersion", .string(emulatorVersion)),
            ("clock", .string(clock.iso8601)), ("clockMillis", .int(clock.millis)),
            ("include", .array(include.map { .string($0.rawValue) })),
            ("files", .object(files.map { ($0.name, .object([("lines", .int($0.entry.lines)), ("bytes", .int($0.entry.bytes))])) })),
        ])
    }

    /// Reads a manifest; `text` is its whole content, to name the line of a bad field.
    static func parse(_ text: String) throws(SnapshotError) -> SnapshotManifest {
        let file = "manifest.json"
        func lineOf(_ key: String) -> Int? {
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("\"\(key)\"") {
                return i + 1
            }
            return nil
        }
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONParser.parse(text)
        } catch {
            let line = text.utf8.prefix(error.offset).filter { $0 == 10 }.count + 1
            throw SnapshotError(file: file, line: line, "not valid JSON: \(error.reason)")
        }
        func problem(_ key: String, _ message: String) -> SnapshotError { SnapshotError(file: file, line: lineOf(key), message) }
        guard let pairs = json.objectValue else { throw SnapshotError(file: file, line: 1, "must be a JSON object") }
        let known: Set<String> = ["format", "formatVersion", "emulatorVersion", "clock", "clockMillis", "include", "files"]
        if let unknown = pairs.first(where: { !known.contains($0.0) }) {
            throw problem(
                unknown.0, "field \"\(unknown.0)\" is not part of snapshot format \(currentVersion); refusing to guess what it means")
        }
        guard json["format"]?.stringValue == format else { throw problem("format", "\"format\" must be \"\(format)\"") }
        guard let version = json["formatVersion"]?.int64Value else { throw problem("formatVersion", "\"formatVersion\" must be a number") }
        guard version <= Int64(currentVersion) else {
            throw problem(
                "formatVersion", "snapshot format \(version) is newer than this emulator reads (\(currentVersion)); upgrade fcm-emu")
        }
        guard version == Int64(currentVersion) else { throw problem("formatVersion", "snapshot format \(version) is unknown") }
        guard let emulatorVersion = json["emulatorVersion"]?.stringValue else {
            throw problem("emulatorVersion", "\"emulatorVersion\" must be a string")
        }
        guard let millis = json["clockMillis"]?.int64Value, millis >= 0, millis <= Instant.latest.millis else {
            throw problem("clockMillis", "\"clockMillis\" must be milliseconds since 1970 up to year 9999")
        }
        var include: [Part] = []
        for item in json["include"]?.arrayValue ?? [] {
            guard let part = item.stringValue.flatMap(Part.init) else { throw problem("include", "\"include\" names an unknown part") }
            include.append(part)
        }
        guard let filePairs = json["files"]?.objectValue else { throw problem("files", "\"files\" must be an object") }
        var files: [(String, FileEntry)] = []
        let allowed = Set(allFiles)
        for (name, value) in filePairs {
            guard allowed.contains(name) else { throw problem(name, "file \"\(name)\" is not part of snapshot format \(currentVersion)") }
            guard let lines = value["lines"]?.int64Value, let bytes = value["bytes"]?.int64Value, lines >= 0, bytes >= 0,
                value.objectValue?.count == 2
            else { throw problem(name, "\"files.\(name)\" must be {\"lines\": n, \"bytes\": n}") }
            files.append((name, FileEntry(lines: Int(lines), bytes: Int(bytes))))
        }
        for name in requiredFiles where !files.contains(where: { $0.0 == name }) {
            throw problem("files", "\"files\" lacks \(name)")
        }
        if include.contains(.events), !files.contains(where: { $0.0 == eventsFile }) {
            throw problem("files", "\"include\" names events but \"files\" lacks \(eventsFile)")
        }
        return SnapshotManifest(
            formatVersion: Int(version), emulatorVersion: emulatorVersion, clock: Instant(millis: millis), include: include,
            files: files.map { (name: $0.0, entry: $0.1) })
    }
}
