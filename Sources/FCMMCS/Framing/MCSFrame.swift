// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// One MCS message on the wire: a tag naming its type and its protobuf bytes
/// (Chromium google_apis/gcm/engine/connection_handler_impl.cc: `tag:u8 size:varint32 payload`,
/// the first message of each side preceded by the version byte).
public struct MCSFrame: Sendable, Equatable {
    /// Chromium's `kMCSVersion`; firebase-messaging also accepts 38 from a server.
    public static let version: UInt8 = 41
    /// Tags 0–15 exist (mcs.proto's messages, `MCSTag`); a higher one ends the stream.
    public static let maxTag: UInt8 = 15

    public let tag: UInt8
    public let payload: [UInt8]

    public init(tag: UInt8, payload: [UInt8]) {
        self.tag = tag
        self.payload = payload
    }
}

/// Why a client's byte stream is not MCS.
public enum MCSFrameError: Error, Equatable, CustomStringConvertible {
    case unsupportedVersion(UInt8)
    case unknownTag(UInt8)
    case tooLarge(size: UInt64, limit: Int)
    case malformedSize

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "MCS version \(v) (this server speaks 41)"
        case .unknownTag(let t): "unknown message tag \(t)"
        case .tooLarge(let size, let limit): "a \(size)-byte message (at most \(limit))"
        case .malformedSize: "a size varint longer than 5 bytes"
        }
    }
}

/// The client's half of the framing: a version byte first, then frames. Each frame's size is
/// checked against the cap before its bytes are waited for, so a peer cannot make the server
/// buffer more than `maxFrameBytes` plus a frame's head.
public struct MCSFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = MCSFrame

    private let maxFrameBytes: Int
    private var versionRead = false

    /// - Parameter versionByte: whether the stream starts with the version byte (a connection's
    ///   does; a test that replays frames alone says no).
    public init(maxFrameBytes: Int, versionByte: Bool = true) {
        self.maxFrameBytes = maxFrameBytes
        versionRead = !versionByte
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try next(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }

    /// The next whole frame, consumed from `buffer`; nil (nothing consumed but a version byte)
    /// when more bytes are needed.
    public mutating func next(_ buffer: inout ByteBuffer) throws(MCSFrameError) -> MCSFrame? {
        if !versionRead {
            guard let version: UInt8 = buffer.getInteger(at: buffer.readerIndex) else { return nil }
            // Chromium's client sends 41; firebase-messaging's too. 38 is the older version it accepts.
            guard version == MCSFrame.version || version == 38 else { throw .unsupportedVersion(version) }
            buffer.moveReaderIndex(forwardBy: 1)
            versionRead = true
        }
        var cursor = buffer.readerIndex
        guard let tag: UInt8 = buffer.getInteger(at: cursor) else { return nil }
        guard tag <= MCSFrame.maxTag else { throw .unknownTag(tag) }
        cursor += 1
        var size: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte: UInt8 = buffer.getInteger(at: cursor) else { return nil }
            cursor += 1
            size |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw .malformedSize }
        }
        guard size <= UInt64(maxFrameBytes) else { throw .tooLarge(size: size, limit: maxFrameBytes) }
        guard let payload = buffer.getBytes(at: cursor, length: Int(size)) else { return nil }
        buffer.moveReaderIndex(to: cursor + Int(size))
        return MCSFrame(tag: tag, payload: payload)
    }
}
