// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1

/// An answer's status line and fields as bytes: what `HTTP1Connection` writes, and the checks
/// that keep a field from ending the head early (RFC 9110 §5.1, §5.5).
extension HTTP1Connection {
    /// What a whole answer's head says (`writeAnswer`), before it is bytes.
    struct Head {
        var status: HTTPResponseStatus
        var version: HTTPVersion
        var fields: [(String, String)]
        var length: Int?
        var close: Bool
        var bodyless: Bool
    }

    /// `Head`'s status line and fields, written straight into a buffer (after `pending`, when there
    /// is one) in one write, with `bodyBytes` more room, and whether a `Connection` field says `close`.
    static func encode(
        _ head: Head, bodyBytes: Int, after pending: ByteBuffer?, allocator: ByteBufferAllocator
    ) -> (ByteBuffer, closes: Bool) {
        let reason = head.status.reasonPhrase
        // Room for the most each part can take: decimals of up to 20 digits and a sign.
        var room = 5 + 22 + 1 + 22 + 1 + 21 + 1 + reason.utf8.count + 2 + 2
        for (name, value) in head.fields { room += name.utf8.count + value.utf8.count + 4 }
        room += 16 + 22 + 2 + 19
        var buffer: ByteBuffer
        if var pending {
            pending.reserveCapacity(minimumWritableBytes: room + bodyBytes)
            buffer = pending
        } else {
            buffer = allocator.buffer(capacity: room + bodyBytes)
        }
        var closes = false
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { raw in
            var out = HeadWriter(raw)
            out.put(static: "HTTP/")
            out.put(decimal: head.version.major)
            out.put(UInt8(ascii: "."))
            out.put(decimal: head.version.minor)
            out.put(UInt8(ascii: " "))
            out.put(decimal: Int(truncatingIfNeeded: head.status.code))
            out.put(UInt8(ascii: " "))
            out.put(reason)
            out.put(UInt8(ascii: "\r"))
            out.put(UInt8(ascii: "\n"))
            for (name, value) in head.fields {
                // What `HTTPHeaders.remove(name:)` matches, and with it `replaceOrAdd` and `contains`.
                if Self.sameName(name, "transfer-encoding") { continue }
                if head.bodyless || head.length != nil, Self.sameName(name, "content-length") { continue }
                if Self.sameName(name, "connection") {
                    if head.close { continue }
                    if value.equalsIgnoringASCIICase("close") { closes = true }
                }
                out.putField(name, value)
            }
            if let length = head.length, !head.bodyless {
                out.put(static: "Content-Length: ")
                out.put(decimal: length)
                out.put(UInt8(ascii: "\r"))
                out.put(UInt8(ascii: "\n"))
            }
            if head.close {
                out.put(static: "Connection: close\r\n")
                closes = true
            }
            out.put(UInt8(ascii: "\r"))
            out.put(UInt8(ascii: "\n"))
            return out.written
        }
        return (buffer, closes)
    }

    /// NIO's comparison of field names (`compareCaseInsensitiveASCIIBytes`): bytes equal once
    /// bit 5 is cleared, letters or not, so the fields it would remove are the ones skipped here.
    private static func sameName(_ name: String, _ lowercase: StaticString) -> Bool {
        guard name.utf8.count == lowercase.utf8CodeUnitCount else { return false }
        var name = name
        return name.withUTF8 { bytes in
            lowercase.withUTF8Buffer { other in
                for i in 0..<bytes.count where bytes[i] & 0xDF != other[i] & 0xDF { return false }
                return true
            }
        }
    }

    /// Appends `name: value` and its line end when `isWritable` allows it.
    static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        guard isWritable(name, value) else { return }
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: value.utf8)
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A field name is a token and a value holds no control character but HTAB (RFC 9110 §5.1,
    /// §5.5, as NIO's header validation reads them): a CR or LF would let a value end the head and
    /// start a response of its own.
    static func isWritable(_ name: String, _ value: String) -> Bool {
        // From contiguous bytes where the strings have them, in plain loops: a closure a byte, as
        // `allSatisfy` called it, was most of a field's cost.
        var name = name
        var value = value
        let token = name.withUTF8 { bytes in
            guard !bytes.isEmpty else { return false }
            for b in bytes where !HTTPBytes.isToken(b) { return false }
            return true
        }
        guard token else { return false }
        return value.withUTF8 { bytes in
            for b in bytes where (b < 0x20 && b != 0x09) || b == 0x7F { return false }
            return true
        }
    }
}

/// Writes a head's bytes into room reserved for all of them: `HTTP1Connection.encode(_:bodyBytes:after:allocator:)` counted
/// the most each part takes before it began.
private struct HeadWriter {
    private let raw: UnsafeMutableRawBufferPointer
    private(set) var written = 0

    init(_ raw: UnsafeMutableRawBufferPointer) { self.raw = raw }

    mutating func put(_ byte: UInt8) {
        raw[written] = byte
        written += 1
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, let target = raw.baseAddress, !bytes.isEmpty else { return }
        (target + written).copyMemory(from: base, byteCount: bytes.count)
        written += bytes.count
    }

    mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    mutating func put(static text: StaticString) {
        text.withUTF8Buffer { put($0) }
    }

    mutating func put(decimal: Int) {
        if decimal < 0 { put(UInt8(ascii: "-")) }
        var rest = decimal.magnitude
        var count = 0
        var counting = rest
        repeat {
            count += 1
            counting /= 10
        } while counting > 0
        var at = written + count
        repeat {
            at -= 1
            raw[at] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
            rest /= 10
        } while rest > 0
        written += count
    }

    /// `name: value` and its line end, when `HTTP1Connection.isWritable` allows it, checked on
    /// the bytes as they are copied.
    mutating func putField(_ name: String, _ value: String) {
        guard HTTP1Connection.isWritable(name, value) else { return }
        put(name)
        put(UInt8(ascii: ":"))
        put(UInt8(ascii: " "))
        put(value)
        put(UInt8(ascii: "\r"))
        put(UInt8(ascii: "\n"))
    }
}

extension ByteBuffer {
    /// `name: value` and its line end: a chunked answer's trailer, once `isWritable` allowed it.
    mutating func writeHeader(_ name: String, _ value: String) {
        writeString(name)
        writeStaticString(": ")
        writeString(value)
        writeStaticString("\r\n")
    }
}
