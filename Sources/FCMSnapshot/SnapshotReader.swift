// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a snapshot directory into a fresh world, checking every line. Nothing here touches a
/// running emulator: the caller swaps the result in (`Emulator.restore`) only if all of it read.
package enum SnapshotReader {
    /// The lines of `credentials.jsonl` (empty when the snapshot has none), checked against the
    /// manifest's count; what they mean is for the HTTP fronts to read.
    package static func credentials(directory: String) throws(SnapshotError) -> [JSONValue] {
        let manifest = try readManifest(directory)
        guard let entry = manifest.files.first(where: { $0.name == SnapshotManifest.credentialsFile }) else { return [] }
        var lines: [JSONValue] = []
        try LineReader(
            directory: directory, file: SnapshotManifest.credentialsFile, expectedLines: entry.entry.lines, expectedBytes: entry.entry.bytes
        ).forEach { _, value in
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

    package static func read(directory: String) throws(SnapshotError) -> (image: WorldImage, manifest: SnapshotManifest) {
        let manifest = try readManifest(directory)
        func reader(_ name: String) -> LineReader {
            let entry = manifest.files.first { $0.name == name }?.entry
            return LineReader(directory: directory, file: name, expectedLines: entry?.lines ?? 0, expectedBytes: entry?.bytes ?? 0)
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
            var project = Project(
                id: try f.string("id"), number: try f.string("number"), serverKeys: keys, createdAt: try f.instant("createdAt"))
            project.apiEnabled = try f.bool("apiEnabled", default: true)
            try f.finish()
            try builder.addProject(project)
        }
        var messageList: [Message] = []
        try reader("messages.jsonl").forEach { _, value in
            messageList.append(try MessageCodec.decode(value, expectedRef: messageList.count))
        }
        let messages = messageList
        // Two cores: a second thread parses the device lines into batches while this one reads,
        // checks and queues the timers (they need only the number of device slots, which is the
        // devices file's line count or its reading fails, and the counters), then puts the parsed
        // devices into the world and reads the rest. The parser runs ahead meanwhile.
        let deviceReader = reader("devices.jsonl")
        let timerReader = reader("timers.jsonl")
        let batchSize = 256
        // `{"id":0,"project":0,"deleted":true}` and `[0,0,"retry",0]` are the shortest lines.
        let deviceBound = deviceReader.lineBound(shortestLine: 35)
        let channel = BatchChannel<DeviceBatch>()
        _ = try alongside({
            Self.parseDevices(deviceReader, messages: messages, batchSize: batchSize, into: channel)
        }) { () throws(SnapshotError) in
            do throws(SnapshotError) {
                var timers = try Self.readTimers(
                    timerReader, deviceSlots: deviceReader.expectedLines, counters: counters,
                    capacity: timerReader.lineBound(shortestLine: 15))
                timers.seal()
                builder.setTimers(timers)
            } catch {
                channel.cancel()
                throw error
            }
            do throws(SnapshotError) {
                builder.reserve(devices: deviceBound)
                while var batch = channel.receive() {
                    var line = batch.firstLine
                    while let device = batch.devices.popLast() {
                        do throws(SnapshotProblem) {
                            switch consume device {
                            case .live(let record): try builder.addDevice(record)
                            case .deleted(let id, let project): try builder.addDeletedDevice(id: id, projectIndex: project)
                            }
                        } catch {
                            throw SnapshotError(file: "devices.jsonl", line: line, error.message)
                        }
                        line += 1
                    }
                    if let failure = batch.failure { throw failure }
                }
            } catch {
                channel.cancel()
                throw error
            }
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

    /// Every line of `timers.jsonl`, read and checked against the device slots and the counter.
    private static func readTimers(
        _ reader: LineReader, deviceSlots: Int, counters: SnapshotRecord.Counters, capacity: Int
    ) throws(SnapshotError) -> WorldBuilder.Timers {
        var timers = WorldBuilder.Timers(deviceSlots: deviceSlots, counters: counters, capacity: capacity)
        try reader.forEach(
            fast: { _, line in
                guard let timer = TimerLines.fastRead(line) else { return false }
                try timers.add(timer)
                return true
            }
        ) { _, value in try timers.add(try TimerLines.read(value)) }
        return timers
    }

    /// The device lines of a snapshot, parsed (on the caller's thread) into batches for `channel`;
    /// the batch after the last good line carries the failure, if any.
    private static func parseDevices(
        _ reader: LineReader, messages: [Message], batchSize size: Int, into channel: BatchChannel<DeviceBatch>
    ) {
        var batch = DeviceBatch(firstLine: 1)
        batch.devices.reserveCapacity(size)
        var shared = SharedStrings()
        var stopped = false
        func add(_ device: FastDevice, line: Int) -> Bool {
            batch.devices.append(device)
            guard batch.devices.count == size else { return true }
            // Reversed, so the receiver takes each device out with popLast instead of copying it.
            batch.devices.reverse()
            guard channel.send(batch) else {
                stopped = true
                return false
            }
            batch = DeviceBatch(firstLine: line + 1)
            batch.devices.reserveCapacity(size)
            return true
        }
        do throws(SnapshotError) {
            try reader.forEach(
                fast: { line, bytes in
                    guard let device = DeviceLines.fastRead(bytes, messages: messages, shared: &shared) else { return false }
                    guard add(device, line: line) else { throw SnapshotProblem("stopped") }
                    return true
                }
            ) { line, value in
                guard add(try DeviceLines.parse(value, messages: messages), line: line) else { throw SnapshotProblem("stopped") }
            }
        } catch {
            if stopped { return }
            batch.failure = error
        }
        batch.devices.reverse()
        _ = channel.send(batch)
        channel.close()
    }
}

/// Device lines parsed on one thread for the builder on another: `devices` in reverse line
/// order from `firstLine`, then the failure that ended the file's reading, if one did.
struct DeviceBatch: Sendable {
    var firstLine: Int
    var devices: [FastDevice] = []
    var failure: SnapshotError?
}
