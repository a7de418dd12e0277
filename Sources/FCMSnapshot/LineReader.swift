// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
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
    /// Bytes the manifest promises: a file cut or grown without a line's break still differs.
    var expectedBytes: Int? = nil

    /// How many lines the file can hold at most, given its size now and the shortest line its
    /// kind has: room reserved from the manifest's count must not exceed what the file could
    /// fill (a peer's manifest may claim billions).
    func lineBound(shortestLine: Int) -> Int {
        var info = stat()
        guard stat(directory + "/" + file, &info) == 0 else { return 0 }
        return min(max(0, expectedLines), Int(info.st_size) / max(1, shortestLine + 1))
    }

    /// Calls `body` with each line's 1-based number and JSON value. With `fast`, each line's bytes
    /// go there first, and only the lines it declines (returns false) are parsed as JSON trees.
    func forEach(
        fast: ((Int, UnsafeBufferPointer<UInt8>) throws -> Bool)? = nil, _ body: (Int, JSONValue) throws -> Void
    ) throws(SnapshotError) {
        let path = directory + "/" + file
        guard let handle = OwnedFile(readingAt: path) else {
            throw SnapshotError(file: file, line: nil, "missing (the manifest lists it)")
        }
        defer { try? handle.close() }
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
        // One buffer for the whole file, read into with read(2): a fresh 8 MiB `Data` per chunk
        // (and a copy of it) cost a page fault per 4 KiB, thousands per chunk.
        var buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.chunk)
        defer { buffer.deallocate() }
        var filled = 0
        var total = 0
        let descriptor = handle.descriptor
        while true {
            if filled == buffer.count {
                // A line longer than the buffer: grow it, up to the longest line allowed.
                let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: min(buffer.count * 2, Self.maxLineBytes + Self.chunk))
                _ = grown.initialize(fromContentsOf: buffer)
                buffer.deallocate()
                buffer = grown
            }
            guard let base = buffer.baseAddress else { break }
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw SnapshotError(file: file, line: lineNumber + 1, "cannot be read: \(reason)")
            }
            if count == 0 { break }
            filled += count
            total += count
            var start = 0
            while start < filled, let found = memchr(base + start, 10, filled - start) {
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                try take(UnsafeBufferPointer(start: base + start, count: newline - start))
                start = newline + 1
            }
            if start > 0 {
                if start < filled { memmove(base, base + start, filled - start) }
                filled -= start
            }
            guard filled <= Self.maxLineBytes else {
                throw SnapshotError(file: file, line: lineNumber + 1, "a line is longer than \(Self.maxLineBytes) bytes")
            }
        }
        guard filled == 0 else {
            throw SnapshotError(
                file: file, line: lineNumber + 1, "the last line is cut short (no newline at its end): the file is truncated")
        }
        guard lineNumber == expectedLines else {
            throw SnapshotError(
                file: file, line: lineNumber + 1, "the file ends after \(lineNumber) lines; the manifest says \(expectedLines)")
        }
        if let expectedBytes, total != expectedBytes {
            throw SnapshotError(file: file, line: nil, "the file holds \(total) bytes; the manifest says \(expectedBytes)")
        }
    }
}
