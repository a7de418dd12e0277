// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// The GOAWAY frame as bytes (RFC 9113 §4.1 frame header, §6.8 payload): a 9-byte header (length,
/// type 0x7, no flags, stream 0), the last stream id, the error code, then opaque debug data.
enum GoAwayFrame {
    static let type: UInt8 = 0x7
    static let headerBytes = 9
    static let fixedPayloadBytes = 8

    /// Whether `buffer` is exactly one GOAWAY with no debug data that names stream 2^31−1 as the
    /// last and an error code: what NIO writes for a connection error.
    static func isConnectionErrorGoAway(_ buffer: ByteBuffer) -> Bool {
        guard buffer.readableBytes == headerBytes + fixedPayloadBytes,
            let header = buffer.getBytes(at: buffer.readerIndex, length: headerBytes),
            header == [0, 0, UInt8(fixedPayloadBytes), type, 0, 0, 0, 0, 0],
            let last = buffer.getInteger(at: buffer.readerIndex + headerBytes, as: UInt32.self),
            let code = buffer.getInteger(at: buffer.readerIndex + headerBytes + 4, as: UInt32.self)
        else { return false }
        return last & 0x7fff_ffff == 0x7fff_ffff && code != 0
    }

    static func encode(
        lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: String, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        let length = fixedPayloadBytes + debugData.utf8.count
        var buffer = allocator.buffer(capacity: headerBytes + length)
        buffer.writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        buffer.writeInteger(UInt16(truncatingIfNeeded: length))
        buffer.writeInteger(type)
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(UInt32(0))
        buffer.writeInteger(UInt32(Int32(lastStreamID)))
        buffer.writeInteger(UInt32(errorCode.networkCode))
        buffer.writeString(debugData)
        return buffer
    }
}
