// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Foundation

/// Reads a snapshot directory into a fresh world, checking every line. Nothing here touches a
/// running emulator: the caller swaps the result in (`Emulator.restore`) only if all of it read.
public enum SnapshotReader {
    /// The lines of `credentials.jsonl` (empty when the snapshot has none), checked against the
    /// manifest's count; what they mean is for the HTTP fronts to read.
    public static func credentials(directory: String) throws(SnapshotError) -> [JSONValue] {
        let manifest = try readManifest(directory)
        guard let entry = manifest.files.first(where: { $0.name == SnapshotManifest.credentialsFile }) else { return [] }
        var lines: [JSONValue] = []
        try LineReader(directory: directory, file: SnapshotManifest.credentialsFile, expectedLines: entry.entry.lines).forEach { _, value in
            lines.append(value)
        }
        return lines
    }

    private static func readManifest(_ directory: String) throws(SnapshotError) -> SnapshotManifest {
        let manifestPath = directory + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw SnapshotError(file: "manifest.json", line: nil, "missing: \(directory) is not a snapshot directory")
        }
        guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
            throw SnapshotError(file: "manifest.json", line: nil, "must be UTF-8 JSON under 1 MiB")
        }
        return try SnapshotManifest.parse(text)
    }

    public static func read(directory: String) throws(SnapshotError) -> (image: WorldImage, manifest: SnapshotManifest) {
        let manifest = try readManifest(directory)
        func reader(_ name: String) -> LineReader {
            LineReader(directory: directory, file: name, expectedLines: manifest.files.first { $0.name == name }?.entry.lines ?? 0)
        }

        // world.jsonl first: its first two lines (settings, counters) start the builder; the rest
        // waits until devices exist, as fan-outs and CCS queues refer to them.
        var settings: EmulatorSettings?
        var counters: SnapshotRecord.Counters?
        var later: [(Int, JSONValue)] = []
        try reader("world.jsonl").forEach { line, value in
            switch line {
            case 1: settings = try WorldLines.readSettings(value)
            case 2: counters = try WorldLines.readCounters(value)
            default: later.append((line, value))
            }
        }
        guard let settings, let counters else { throw SnapshotError(file: "world.jsonl", line: 1, "lacks the settings and counters lines") }
        var builder = WorldBuilder(settings: settings, now: manifest.clock, counters: counters)

        try reader("projects.jsonl").forEach { line, value in
            var f = try JSONFields(value, "project")
            guard try f.int("index") == Int64(line - 1) else {
                throw SnapshotProblem("project index must be \(line - 1) (one line per index)")
            }
            if try f.bool("deleted") {
                try f.finish()
                try builder.addProject(nil)
                return
            }
            var keys: [String] = []
            for k in try f.array("serverKeys") {
                guard let key = k.stringValue else { throw SnapshotProblem("project.serverKeys must hold strings") }
                keys.append(key)
            }
            let project = Project(
                id: try f.string("id"), number: try f.string("number"), serverKeys: keys, createdAt: try f.instant("createdAt"))
            try f.finish()
            try builder.addProject(project)
        }
        var messages: [Message] = []
        try reader("messages.jsonl").forEach { _, value in messages.append(try MessageCodec.decode(value, expectedRef: messages.count)) }
        // The timers are parsed on a second core while this one reads the devices; they are
        // checked against the devices once both are read.
        let timerReader = reader("timers.jsonl")
        let (parsedTimers, _) = try alongside({ () -> Result<[SnapshotRecord.Timer], SnapshotError> in
            Result { () throws(SnapshotError) in try Self.readTimers(timerReader) }
        }) { () throws(SnapshotError) in
            builder.reserve(devices: reader("devices.jsonl").expectedLines)
            var shared = SharedStrings()
            try reader("devices.jsonl").forEach(
                fast: { _, line in
                    switch DeviceLines.fastRead(line, messages: messages, shared: &shared) {
                    case .live(let record): try builder.addDevice(record)
                    case .deleted(let id, let project): try builder.addDeletedDevice(id: id, projectIndex: project)
                    case nil: return false
                    }
                    return true
                }
            ) { _, value in try DeviceLines.read(value, messages: messages, builder: &builder) }
            try reader("tokens.jsonl").forEach { _, value in
                var f = try JSONFields(value, "retired token")
                let record = SnapshotRecord.RetiredToken(
                    token: try f.string("token"), device: try f.number("device", as: DeviceID.self),
                    canonicalUntil: try f.optionalInstant("canonicalUntil"))
                try f.finish()
                try builder.addRetiredToken(record)
            }
            try reader("topics.jsonl").forEach { _, value in
                var f = try JSONFields(value, "topic")
                var devices: [DeviceID] = []
                for d in try f.array("devices") {
                    guard let id = d.int64Value.flatMap({ DeviceID(exactly: $0) }) else {
                        throw SnapshotProblem("topic.devices must be device ids")
                    }
                    devices.append(id)
                }
                let record = SnapshotRecord.Topic(
                    projectIndex: try f.number("project", as: Int32.self), name: try f.string("topic"), devices: devices)
                try f.finish()
                try builder.addTopic(record)
            }
            try reader("groups.jsonl").forEach { _, value in
                var f = try JSONFields(value, "group")
                var tokens: [String] = []
                for t in try f.array("tokens") {
                    guard let token = t.stringValue else { throw SnapshotProblem("group.tokens must hold strings") }
                    tokens.append(token)
                }
                let group = DeviceGroup(
                    restoring: try f.string("name"), notificationKey: try f.string("notificationKey"), tokens: tokens,
                    createdAt: try f.instant("createdAt"))
                let project = try f.number("project", as: Int32.self)
                try f.finish()
                try builder.addGroup(group, projectIndex: project)
            }
        }
        guard let parsedTimers else { throw SnapshotError(file: "timers.jsonl", line: nil, "was not read") }
        let timers = try parsedTimers.get()
        builder.reserve(timers: timers.count)
        for (index, timer) in timers.enumerated() {
            do throws(SnapshotProblem) {
                try builder.addTimer(timer)
            } catch {
                throw SnapshotError(file: "timers.jsonl", line: index + 1, error.message)
            }
        }
        for (line, value) in later {
            do throws(SnapshotProblem) {
                try WorldLines.read(value, messages: messages, builder: &builder)
            } catch {
                throw SnapshotError(file: "world.jsonl", line: line, error.message)
            }
        }
        if manifest.include.contains(.events) {
            var events: [Event] = []
            try reader(SnapshotManifest.eventsFile).forEach { _, value in
                let event = try EventLines.read(value, messages: messages)
                try builder.checkEvent(event)
                events.append(event)
            }
            do throws(SnapshotProblem) {
                try builder.setEvents(events)
            } catch {
                throw SnapshotError(file: SnapshotManifest.eventsFile, line: nil, error.message)
            }
        }
        do throws(SnapshotProblem) {
            return (try builder.finish(), manifest)
        } catch {
            throw SnapshotError(file: "topics.jsonl", line: nil, error.message)
        }
    }

    /// Every line of `timers.jsonl`, parsed but not yet checked against the devices.
    private static func readTimers(_ reader: LineReader) throws(SnapshotError) -> [SnapshotRecord.Timer] {
        var timers: [SnapshotRecord.Timer] = []
        timers.reserveCapacity(reader.expectedLines)
        try reader.forEach(
            fast: { _, line in
                guard let timer = TimerLines.fastRead(line) else { return false }
                timers.append(timer)
                return true
            }
        ) { _, value in timers.append(try TimerLines.read(value)) }
        return timers
    }
}
