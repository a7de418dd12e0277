// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// A snapshot can plant no value a later ordinary request overflows on: settings take the ranges
/// `--set` takes, counters and instants the ranges the world can reach. Each
/// of these edits was imported before, and the next send, clock advance or connection trapped.
@Suite struct ImportRangeTests {
    struct Edit: Sendable, CustomStringConvertible {
        let description: String
        let file: String
        let line: Int
        let field: String
        let value: String
    }

    static let int64Max = String(Int64.max)
    static let uint64Max = "\"\(UInt64.max)\""

    static let edits: [Edit] = [
        Edit(description: "nextStoreSequence at UInt64.max", file: "world.jsonl", line: 2, field: "nextStoreSequence", value: uint64Max),
        Edit(description: "nextTimerSequence at UInt64.max", file: "world.jsonl", line: 2, field: "nextTimerSequence", value: uint64Max),
        Edit(description: "microCounter at UInt64.max", file: "world.jsonl", line: 2, field: "microCounter", value: uint64Max),
        Edit(description: "nextEventSequence at Int64.max", file: "world.jsonl", line: 2, field: "nextEventSequence", value: int64Max),
        Edit(description: "nextCCSConnection at Int64.max", file: "world.jsonl", line: 2, field: "nextCCSConnection", value: int64Max),
        Edit(description: "inactiveAfterSeconds at Int64.max", file: "world.jsonl", line: 1, field: "inactiveAfterSeconds", value: int64Max),
        Edit(
            description: "deletedSignalWindowSeconds at Int64.max", file: "world.jsonl", line: 1, field: "deletedSignalWindowSeconds",
            value: int64Max),
        Edit(description: "rate window of Int64.max s", file: "world.jsonl", line: 1, field: "windowSeconds", value: int64Max),
        Edit(description: "maxEvents raised to 2^40", file: "world.jsonl", line: 1, field: "maxEvents", value: String(1 << 40)),
        Edit(description: "maxStoredMessages raised to 2^40", file: "world.jsonl", line: 1, field: "maxStoredMessages", value: String(1 << 40)),
        Edit(description: "maxInboxPerDevice raised to 2^40", file: "world.jsonl", line: 1, field: "maxInboxPerDevice", value: String(1 << 40)),
        Edit(description: "a rate window counted to Int64.max", file: "world.jsonl", line: 4, field: "count", value: int64Max),
        Edit(description: "a device created at Int64.min", file: "devices.jsonl", line: 1, field: "createdAt", value: String(Int64.min)),
        // An inbox's and a tray's deliveries: a TTL is 0 to 2,419,200 s, as FCM takes it.
        Edit(description: "an inbox TTL at Int64.max", file: "devices.jsonl", line: 4, field: "ttlSeconds", value: int64Max),
        Edit(description: "a tray TTL below zero", file: "devices.jsonl", line: 2, field: "ttlSeconds", value: "-5"),
    ]

    @Test(arguments: edits)
    func edgeValueIsRefusedAndTheWorldKept(_ edit: Edit) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let source = try WorldFixture.make()
        try source.exportSnapshot(to: scratch.sub("bad"), options: WorldFixture.options)
        var found = false
        try CorruptSnapshotTests.editLines(scratch.sub("bad"), edit.file) { lines in
            let (changed, count) = Self.replace(field: edit.field, in: lines[edit.line - 1], with: edit.value)
            found = count > 0
            lines[edit.line - 1] = changed
        }
        try #require(found, "the fixture has no \(edit.field) on \(edit.file) line \(edit.line)")

        let error = try Self.refusedAndTheWorldKept(scratch, bad: "bad")
        #expect(error?.file == edit.file)
        #expect(error?.line == edit.line)
    }

    /// Imports `bad` into a fixture world, expecting a refusal that leaves the world as it was.
    static func refusedAndTheWorldKept(_ scratch: ScratchDirectory, bad: String) throws -> SnapshotError? {
        let running = try WorldFixture.make()
        try running.exportSnapshot(to: scratch.sub("before"), options: WorldFixture.options)
        let error = #expect(throws: SnapshotError.self) { try running.importSnapshot(from: scratch.sub(bad), clock: .snapshot) }
        try running.exportSnapshot(to: scratch.sub("after"), options: WorldFixture.options)
        #expect(try WorldFixture.files(scratch.sub("before")) == WorldFixture.files(scratch.sub("after")))
        return error
    }

    /// Random numeric edits of a good export: each is refused, or the world it makes takes the
    /// ordinary requests without trapping (a trap ends the test process: the failure).
    @Test func randomNumericEditsNeverPlantATrap() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let source = try WorldFixture.make()
        try source.exportSnapshot(to: scratch.sub("good"), options: WorldFixture.options)
        let edges = [
            String(Int64.max), String(Int64.min), "-1", "0", "1", String(1 << 53), String((1 << 53) + 1), String(1 << 40),
            String(Int64.max - 1000), String(Int32.max), "999", "1000",
        ]
        var random = SystemRandomNumberGenerator()
        var refused = 0
        var imported = 0
        for round in 0..<120 {
            let dir = scratch.sub("edit-\(round)")
            try FileManager.default.copyItem(atPath: scratch.sub("good"), toPath: dir)
            let file = ["world.jsonl", "devices.jsonl", "timers.jsonl", "events.jsonl", "messages.jsonl", "projects.jsonl"]
                .randomElement(using: &random) ?? "world.jsonl"
            try CorruptSnapshotTests.editLines(dir, file) { lines in
                guard !lines.isEmpty else { return }
                let index = Int.random(in: 0..<lines.count, using: &random)
                lines[index] = Self.replaceRandomNumber(in: lines[index], with: edges.randomElement(using: &random) ?? "0", &random)
            }
            let emulator = Emulator()
            do {
                try emulator.importSnapshot(from: dir, clock: .snapshot)
                imported += 1
            } catch {
                refused += 1
                continue
            }
            try? Self.ordinaryRequests(emulator)
        }
        #expect(refused + imported == 120)
    }

    /// What any world must take: a send, a CCS connection, a new device, clock advances, reads.
    static func ordinaryRequests(_ emu: Emulator) throws {
        let p = DemoProject.id
        _ = try? emu.send(SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .v1), from: p)
        if let device = try? emu.devices(projectId: p).page.first {
            _ = try? emu.send(SendRequest(target: .token(device.token), content: MessageContent(data: [("k", "v")]), api: .v1), from: p)
            _ = try? emu.setState(String(device.id), projectId: p, to: .foreground)
            _ = try? emu.inbox(String(device.id), projectId: p)
        }
        _ = try? emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: p)
        _ = try? emu.ccsConnect(sender: p)
        _ = try? emu.sendUpstream("0", projectId: p, data: [("up", "1")])
        _ = try? emu.advance(byMillis: 3_600_000)
        _ = try? emu.advance(byMillis: 40 * 86_400_000)
        _ = try? emu.events(EventQuery(since: Instant(millis: 0), limit: 1000))
        _ = emu.randomInt64()
    }

    /// Replaces `"field":value` (a number or a quoted decimal) in a compact JSON line.
    static func replace(field: String, in line: String, with value: String) -> (String, Int) {
        let pattern = "\"\(field)\":(\"[0-9]+\"|-?[0-9]+)"
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return (line, 0) }
        let range = NSRange(line.startIndex..., in: line)
        let count = regex.numberOfMatches(in: line, range: range)
        let template = NSRegularExpression.escapedTemplate(for: "\"\(field)\":\(value)")
        return (regex.stringByReplacingMatches(in: line, range: range, withTemplate: template), count)
    }

    static func replaceRandomNumber(in line: String, with value: String, _ random: inout SystemRandomNumberGenerator) -> String {
        guard let regex = try? NSRegularExpression(pattern: "-?[0-9]+") else { return line }
        let matches = regex.matches(in: line, range: NSRange(line.startIndex..., in: line))
        guard let match = matches.randomElement(using: &random), let range = Range(match.range, in: line) else { return line }
        return line.replacingCharacters(in: range, with: value)
    }
}
