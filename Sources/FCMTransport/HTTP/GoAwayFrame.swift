// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP2

/// The GOAWAY frame as bytes (RFC 9113 §4.1 frame header, §6.8 payload): a 9-byte header (length,
/// type 0x7, no flags, stream 0), the last stream id, the error code, then opaque debug data.
enum GoAwayFrame {
    static let type: UInt8 = 0x7
    static let headerBytes = 9
    static let fixedPayloadBytes = 8

    /// A GOAWAY as NIO writes it for a connection error: its last stream id and error code.
    struct ConnectionError: Equatable {
        let lastStreamID: HTTP2StreamID
        let errorCode: HTTP2ErrorCode
    }

    /// `buffer` as NIO's GOAWAY for a connection error: exactly one GOAWAY with no debug data and
    /// an error code, naming as the last stream either 2^31−1 (NIO cannot know what the streams
    /// handled) or 0 (a peer NIO judged to misbehave: its DoS heuristics, rapid reset); nil for
    /// anything else.
    static func connectionError(_ buffer: ByteBuffer) -> ConnectionError? {
        guard buffer.readableBytes == headerBytes + fixedPayloadBytes,
            let header = buffer.getBytes(at: buffer.readerIndex, length: headerBytes),
            header == [0, 0, UInt8(fixedPayloadBytes), type, 0, 0, 0, 0, 0],
            let last = buffer.getInteger(at: buffer.readerIndex + headerBytes, as: UInt32.self),
            let code = buffer.getInteger(at: buffer.readerIndex + headerBytes + 4, as: UInt32.self),
            code != 0
        else { return nil }
        let errorCode = HTTP2ErrorCode(networkCode: Int(code))
        switch last & 0x7fff_ffff {
        case 0x7fff_ffff: return ConnectionError(lastStreamID: .maxID, errorCode: errorCode)
        case 0: return ConnectionError(lastStreamID: .rootStream, errorCode: errorCode)
        default: return nil
        }
    }

    static func encode(
        lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: String = "", allocator: ByteBufferAllocator
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
