// SPDX-License-Identifier: Apache-2.0

import FCMJSON
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one JSON Lines file: bytes go straight into a large buffer (no JSON trees for the
/// million-line files) and reach the file in big chunks. Counts lines and bytes for the manifest.
struct LineWriter {
    private static let chunk = 4 << 20
    private let file: OwnedFile
    private var buffer: [UInt8] = []
    private(set) var lines = 0
    private(set) var bytes = 0

    /// `private` files (keys) are readable by their owner only.
    init(path: String, private: Bool = false) throws {
        // open(2) itself, not FileManager.createFile (a Bool): the errno says whose trouble a
        // failure is (out of descriptors or disk: the server's, 503), and O_NOFOLLOW|O_EXCL never
        // writes through a link someone left at the path.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, `private` ? 0o600 : 0o644)
        guard fd >= 0 else { throw SnapshotIOError("create", path, errno) }
        file = OwnedFile(descriptor: fd)
        buffer.reserveCapacity(Self.chunk + 65_536)
    }

    /// Ends the current line; writes the buffer out once it is big.
    mutating func endLine() throws {
        buffer.append(UInt8(ascii: "\n"))
        lines += 1
        if buffer.count >= Self.chunk { try flush() }
    }

    /// A whole line from a JSON value (for the small files).
    mutating func line(_ value: JSONValue) throws {
        raw(value.encoded())
        try endLine()
    }

    mutating func close() throws {
        try flush()
        try file.close()
    }

    private mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try file.write(buffer)
        bytes += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: - Pieces of a line

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    mutating func byte(_ b: UInt8) { buffer.append(b) }

    /// `,"key":` (or `"key":` first in an object: pass `first`).
    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { buffer.append(UInt8(ascii: ",")) }
        buffer.append(UInt8(ascii: "\""))
        raw(name)
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
    }

    mutating func int<I: BinaryInteger>(_ value: I) {
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var v = UInt64(truncatingIfNeeded: value.magnitude)
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        // Up to 20 digits, filled from the end, then appended at once (a byte at a time is
        // an eighth of an export's time).
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            var start = raw.count
            while v > 0 {
                start -= 1
                raw[start] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func null() { raw("null") }

    /// A string literal, escaped as RFC 8259 §7 requires (`JSONValue.writeString`, which copies
    /// plain text whole).
    mutating func string(_ s: String) { JSONValue.writeString(s, into: &buffer) }

    mutating func optionalInt<I: BinaryInteger>(_ value: I?) {
        if let value { int(value) } else { null() }
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }
}
