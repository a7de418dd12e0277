// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMTesting
import Foundation
import Testing

/// Broken snapshots are refused with the file and line at fault, and the running world stays as
/// it was.
@Suite struct CorruptSnapshotTests {
    /// How to break a good snapshot, and what the refusal must say.
    struct Damage: Sendable, CustomStringConvertible {
        let description: String
        let file: String
        let line: Int?
        let says: String
        let apply: @Sendable (String) throws -> Void
    }

    static let damages: [Damage] = [
        Damage(description: "bad JSON at line 3", file: "devices.jsonl", line: 3, says: "not valid JSON") { dir in
            try editLines(dir, "devices.jsonl") { lines in lines[2] = String(lines[2].dropLast(5)) + "]]}" }
        },
        Damage(description: "truncated last line", file: "devices.jsonl", line: nil, says: "cut short") { dir in
            let path = dir + "/devices.jsonl"
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(data.count - 20).write(to: URL(fileURLWithPath: path))
        },
        // Every line still whole and valid, the file longer than the manifest says (docs/snapshots.md).
        Damage(description: "bytes not as the manifest says", file: "devices.jsonl", line: nil, says: "the manifest says") { dir in
            try editLines(dir, "devices.jsonl", fixingManifest: false) { lines in lines[1] += "  " }
        },
        Damage(description: "missing file", file: "topics.jsonl", line: nil, says: "missing") { dir in
            try FileManager.default.removeItem(atPath: dir + "/topics.jsonl")
        },
        Damage(description: "unknown field", file: "devices.jsonl", line: 2, says: "\"color\"") { dir in
            try editLines(dir, "devices.jsonl") { lines in lines[1] = String(lines[1].dropLast()) + ",\"color\":\"red\"}" }
        },
        Damage(description: "newer format version", file: "manifest.json", line: 3, says: "newer than this emulator reads") { dir in
            try editLines(dir, "manifest.json") { lines in lines[2] = "  \"formatVersion\": 2," }
        },
        Damage(description: "dangling device in a topic", file: "topics.jsonl", line: 1, says: "device 999") { dir in
            try editLines(dir, "topics.jsonl") { lines in
                lines[0] = lines[0].replacingOccurrences(of: "\"devices\":[", with: "\"devices\":[999,")
            }
        },
        Damage(description: "dangling device in a timer", file: "timers.jsonl", line: 1, says: "device 999") { dir in
            try editLines(dir, "timers.jsonl") { lines in
                var parts = lines[0].split(separator: ",").map(String.init)
                parts[3] = "999"
                lines[0] = parts.joined(separator: ",")
            }
        },
        Damage(description: "message ref past the messages file", file: "devices.jsonl", line: 1, says: "message 77") { dir in
            try editLines(dir, "devices.jsonl") { lines in
                lines[0] = lines[0].replacingOccurrences(of: "\"stored\":[[0,", with: "\"stored\":[[77,")
            }
        },
        Damage(description: "fewer lines than the manifest says", file: "tokens.jsonl", line: nil, says: "manifest says") { dir in
            try editLines(dir, "tokens.jsonl") { lines in lines.removeLast() }
        },
    ]

    @Test(arguments: damages)
    func refusedWithFileAndLine(_ damage: Damage) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanup() }
        let source = try WorldFixture.make()
        try source.exportSnapshot(to: scratch.sub("good"), options: WorldFixture.options)
        try FileManager.default.copyItem(atPath: scratch.sub("good"), toPath: scratch.sub("bad"))
        try damage.apply(scratch.sub("bad"))

        let running = try WorldFixture.make()
        try running.advance(byMillis: 5_000)
        try running.exportSnapshot(to: scratch.sub("before"), options: WorldFixture.options)
        let error = #expect(throws: SnapshotError.self) { try running.importSnapshot(from: scratch.sub("bad"), clock: .snapshot) }
        #expect(error?.file == damage.file)
        // A missing file and a file's byte count are about no line.
        if let line = damage.line {
            #expect(error?.line == line)
        } else if damage.file != "topics.jsonl", damage.says != "the manifest says" {
            #expect(error?.line != nil)
        }
        #expect(error?.description.contains(damage.says) == true, "\(error?.description ?? "no error")")
        try running.exportSnapshot(to: scratch.sub("after"), options: WorldFixture.options)
        #expect(try WorldFixture.files(scratch.sub("before")) == WorldFixture.files(scratch.sub("after")))
    }

    /// Rewrites a file line by line (each line without its newline). The manifest's byte count
    /// follows the edit (`fixingManifest`), so the check that an edit is after is the one that
    /// answers, not the byte count's.
    static func editLines(_ dir: String, _ file: String, fixingManifest: Bool = true, _ edit: (inout [String]) -> Void) throws {
        let path = dir + "/" + file
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        let trailing = lines.last == ""
        if trailing { lines.removeLast() }
        edit(&lines)
        let text = lines.joined(separator: "\n") + (trailing ? "\n" : "")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        guard fixingManifest, file != "manifest.json" else { return }
        let manifestPath = dir + "/manifest.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        let pattern = "(\"\(NSRegularExpression.escapedPattern(for: file))\"\\s*:\\s*\\{[^}]*\"bytes\"\\s*:\\s*)[0-9]+"
        let regex = try NSRegularExpression(pattern: pattern)
        let fixed = regex.stringByReplacingMatches(
            in: manifest, range: NSRange(manifest.startIndex..., in: manifest), withTemplate: "$1\(text.utf8.count)")
        try fixed.write(toFile: manifestPath, atomically: true, encoding: .utf8)
    }
}
