// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an export writes besides the world itself.
package struct SnapshotOptions: Sendable {
    package var include: Set<SnapshotManifest.Part>
    package var emulatorVersion: String
    /// Lines of `credentials.jsonl`, which the HTTP fronts write and read (the world knows no
    /// keys); empty: no such file.
    package var credentials: [JSONValue]

    package init(include: Set<SnapshotManifest.Part> = [], emulatorVersion: String, credentials: [JSONValue] = []) {
        self.include = include
        self.emulatorVersion = emulatorVersion
        self.credentials = credentials
    }
}

/// Writes a `WorldImage` as a snapshot directory (README, "Snapshots"). Runs outside the world's
/// lock, on the image's own copy; the same image always gives the same bytes.
package enum SnapshotWriter {
    /// Writes the snapshot into `directory`, which must exist and should be empty.
    @discardableResult
    package static func write(_ image: WorldImage, to directory: String, options: SnapshotOptions) throws -> SnapshotManifest {
        var refs = MessageRefs()
        var files: [(name: String, entry: SnapshotManifest.FileEntry)] = []
        func file(_ name: String, private: Bool = false, _ body: (inout LineWriter) throws -> Void) throws {
            var writer = try LineWriter(path: directory + "/" + name, private: `private`)
            try body(&writer)
            try writer.close()
            files.append((name, SnapshotManifest.FileEntry(lines: writer.lines, bytes: writer.bytes)))
        }
        // The timers (ten million lines for a million devices storing ten messages each) are
        // written on a second core while this one writes the devices.
        let timerPath = directory + "/timers.jsonl"
        let (timers, _) = try alongside({
            Result { () throws -> SnapshotManifest.FileEntry in
                var writer = try LineWriter(path: timerPath)
                try TimerLines.write(image, &writer)
                try writer.close()
                return SnapshotManifest.FileEntry(lines: writer.lines, bytes: writer.bytes)
            }
        }) {
            try file("projects.jsonl") { w in try writeProjects(image, &w) }
            try file("devices.jsonl") { w in try DeviceLines.write(image, inbox: options.include.contains(.inboxes), refs: &refs, &w) }
            try file("tokens.jsonl") { w in try writeTokens(image, &w) }
            try file("topics.jsonl") { w in try writeTopics(image, &w) }
            try file("groups.jsonl") { w in try writeGroups(image, &w) }
        }
        guard let timers else { throw SnapshotError(file: "timers.jsonl", line: nil, "was not written") }
        files.append(("timers.jsonl", try timers.get()))
        try file("world.jsonl") { w in try WorldLines.write(image, refs: &refs, &w) }
        if options.include.contains(.events) {
            try file(SnapshotManifest.eventsFile) { w in try EventLines.write(image.events, refs: &refs, &w) }
        }
        if !options.credentials.isEmpty {
            try file(SnapshotManifest.credentialsFile, private: true) { w in for line in options.credentials { try w.line(line) } }
        }
        try file("messages.jsonl") { w in
            for (ref, message) in refs.messages.enumerated() { try w.line(MessageCodec.encode(message, ref: ref)) }
        }
        // Listed in reading order, so the manifest reads as the order of import.
        let order = SnapshotManifest.allFiles
        files.sort { (order.firstIndex(of: $0.name) ?? 99) < (order.firstIndex(of: $1.name) ?? 99) }
        let manifest = SnapshotManifest(
            formatVersion: SnapshotManifest.currentVersion, emulatorVersion: options.emulatorVersion, clock: image.now,
            include: SnapshotManifest.Part.allCases.filter { options.include.contains($0) }, files: files)
        let text = manifest.json.encoded(.pretty) + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/manifest.json"))
        return manifest
    }

    private static func writeProjects(_ image: WorldImage, _ w: inout LineWriter) throws {
        for (index, project) in image.projects.enumerated() {
            guard let project else {
                try w.line(.object([("index", .int(index)), ("deleted", .bool(true))]))
                continue
            }
            // `apiEnabled` only when off: snapshots of projects that never turned it off read as before.
            try w.line(
                .object(omittingNils: [
                    ("index", .int(index)), ("id", .string(project.id)), ("number", .string(project.number)),
                    ("serverKeys", .array(project.serverKeys.map(JSONValue.string))), ("createdAt", .int(project.createdAt.millis)),
                    ("apiEnabled", project.apiEnabled ? nil : .bool(false)),
                ]))
        }
    }

    private static func writeTokens(_ image: WorldImage, _ w: inout LineWriter) throws {
        for r in image.retiredTokens {
            w.byte(UInt8(ascii: "{"))
            w.key("token", first: true)
            w.string(r.token)
            w.key("device")
            w.int(r.device)
            if let until = r.canonicalUntil {
                w.key("canonicalUntil")
                w.int(until.millis)
            }
            w.byte(UInt8(ascii: "}"))
            try w.endLine()
        }
    }

    private static func writeTopics(_ image: WorldImage, _ w: inout LineWriter) throws {
        for t in image.topics {
            try w.line(
                .object([("project", .int(t.projectIndex)), ("topic", .string(t.name)), ("devices", .array(t.devices.map(JSONValue.int)))]))
        }
    }

    private static func writeGroups(_ image: WorldImage, _ w: inout LineWriter) throws {
        for (project, g) in image.groups {
            try w.line(
                .object([
                    ("project", .int(project)), ("name", .string(g.name)), ("notificationKey", .string(g.notificationKey)),
                    ("tokens", .array(g.tokens.map(JSONValue.string))), ("createdAt", .int(g.createdAt.millis)),
                ]))
        }
    }
}

/// Numbers each distinct message in order of first mention; stored copies of one send share one
/// `Message` object, so identity (not the id text, which a peer may repeat) is the key.
struct MessageRefs {
    private(set) var messages: [Message] = []
    private var byObject: [ObjectIdentifier: Int] = [:]
    private var last: (ObjectIdentifier, Int)?

    mutating func ref(_ message: Message) -> Int {
        let key = ObjectIdentifier(message)
        // Consecutive mentions are mostly the same message (one send's copies, device after device).
        if let last, last.0 == key { return last.1 }
        let ref: Int
        if let known = byObject[key] {
            ref = known
        } else {
            ref = messages.count
            messages.append(message)
            byObject[key] = ref
        }
        last = (key, ref)
        return ref
    }
}
