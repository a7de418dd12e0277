// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import Foundation

/// Reads one JSON Lines file of a snapshot in big chunks and hands each line, parsed, to a body;
/// every failure comes back as a `SnapshotError` naming the file and the line.
struct LineReader {
    /// The longest line read: a peer-made snapshot must not decide how much memory one line takes.
    static let maxLineBytes = 64 << 20
    private static let chunk = 8 << 20

    let directory: String
    let file: String
    /// Lines the manifest promises.
    let expectedLines: Int

    /// Calls `body` with each line's 1-based number and JSON value. With `fast`, each line's bytes
    /// go there first, and only the lines it declines (returns false) are parsed as JSON trees.
    func forEach(
        fast: ((Int, UnsafeBufferPointer<UInt8>) throws -> Bool)? = nil, _ body: (Int, JSONValue) throws -> Void
    ) throws(SnapshotError) {
        let path = directory + "/" + file
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SnapshotError(file: file, line: nil, "missing (the manifest lists it)")
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        var lineNumber = 0
        func take(_ bytes: UnsafeBufferPointer<UInt8>) throws(SnapshotError) {
            lineNumber += 1
            guard lineNumber <= expectedLines else {
                throw SnapshotError(file: file, line: lineNumber, "more lines than the manifest's \(expectedLines)")
            }
            if let fast {
                do {
                    if try fast(lineNumber, bytes) { return }
                } catch let problem as SnapshotProblem {
                    throw SnapshotError(file: file, line: lineNumber, problem.message)
                } catch {
                    throw SnapshotError(file: file, line: lineNumber, "\(error)")
                }
            }
            let value: JSONValue
            do throws(JSONParseError) {
                value = try JSONParser.parse(bytes)
            } catch {
                throw SnapshotError(file: file, line: lineNumber, "not valid JSON: \(error.reason) at byte \(error.offset + 1)")
            }
            do {
                try body(lineNumber, value)
            } catch let problem as SnapshotProblem {
                throw SnapshotError(file: file, line: lineNumber, problem.message)
            } catch let error as SnapshotError {
                throw error
            } catch {
                throw SnapshotError(file: file, line: lineNumber, "\(error)")
            }
        }
        while true {
            let data: Data?
            do {
                data = try handle.read(upToCount: Self.chunk)
            } catch {
                throw SnapshotError(file: file, line: lineNumber + 1, "cannot be read: \(error.localizedDescription)")
            }
            guard let data, !data.isEmpty else { break }
            pending.append(contentsOf: data)
            let consumed = try pending.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(SnapshotError) -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                var start = 0
                while start < buffer.count, let found = memchr(base + start, 10, buffer.count - start) {
                    let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    try take(UnsafeBufferPointer(rebasing: buffer[start..<newline]))
                    start = newline + 1
                }
                return start
            }
            pending.removeSubrange(..<consumed)
            guard pending.count <= Self.maxLineBytes else {
                throw SnapshotError(file: file, line: lineNumber + 1, "a line is longer than \(Self.maxLineBytes) bytes")
            }
        }
        guard pending.isEmpty else {
            throw SnapshotError(
                file: file, line: lineNumber + 1, "the last line is cut short (no newline at its end): the file is truncated")
        }
        guard lineNumber == expectedLines else {
            throw SnapshotError(
                file: file, line: lineNumber + 1, "the file ends after \(lineNumber) lines; the manifest says \(expectedLines)")
        }
    }
}
