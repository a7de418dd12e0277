// SPDX-License-Identifier: Apache-2.0

@testable import FCMMCS
import FCMTransport
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

/// MCS framing and messages against the bytes firebase-messaging 0.4.5 sends and reads
/// (docs/reference/receivers-protocols.md §5, recorded from the client).
@Suite("MCS wire: framing and protobuf messages")
struct MCSWireTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    /// The client's first packet: version 41, LoginRequest (tag 2, 151 bytes) for Android id
    /// 5678901234567890123 and security token 123456789012345678.
    static let login: [UInt8] =
        hex("29 02 97 01")
        + hex("0a 0c") + Array("94.0.4606.51".utf8) + hex("12 0f") + Array("mcs.android.com".utf8)
        + hex("1a 13") + Array("5678901234567890123".utf8) + hex("22 13") + Array("5678901234567890123".utf8)
        + hex("2a 12") + Array("123456789012345678".utf8) + hex("32 18") + Array("android-4ecf8295b0f244cb".utf8)
        + hex("42 0b 0a 06") + Array("new_vc".utf8) + hex("12 01") + Array("1".utf8)
        + hex("60 00 6a 07 0a 00 10 01 18 90 4e 70 01 80 01 02 88 01 01")

    func frames(_ bytes: [UInt8], max: Int = 64 << 10) throws -> [MCSFrame] {
        var decoder = MCSFrameDecoder(maxFrameBytes: max)
        var buffer = ByteBuffer(bytes: bytes)
        var out: [MCSFrame] = []
        while let frame = try decoder.next(&buffer) { out.append(frame) }
        return out
    }

    @Test func theClientsLoginDecodesAndReencodesByteForByte() throws {
        #expect(Self.login.count == 155)
        let frame = try #require(try frames(Self.login).first)
        guard case .loginRequest(let login) = try MCSMessage(frame) else {
            Issue.record("not a login")
            return
        }
        #expect(login.id == "94.0.4606.51")
        #expect(login.domain == "mcs.android.com")
        #expect(login.user == "5678901234567890123")
        #expect(login.authToken == "123456789012345678")
        #expect(login.deviceId == "android-4ecf8295b0f244cb")
        #expect(login.settings == [MCSLoginRequest.Setting(name: "new_vc", value: "1")])
        #expect(login.heartbeatIntervalMillis == 10_000)
        #expect(login.useRmq2 == true && login.authService == 2 && login.networkType == 1 && login.adaptiveHeartbeat == false)
        var out = ByteBuffer(bytes: [MCSFrame.version])
        MCSMessage.loginRequest(login).encode(into: &out)
        #expect(Array(out.readableBytesView) == Self.login)
    }

    @Test func aSelectiveAckAHeartbeatAckAndCloseAreReadAsTheClientWritesThem() throws {
        let ack = Self.hex("29 07 13 10 01 1a 00 3a 0d 08 0c 12 09 0a 07") + Array("0:1%abc".utf8)
        let frame = try #require(try frames(ack).first)
        guard case .iqStanza(let iq) = try MCSMessage(frame) else {
            Issue.record("not an IQ")
            return
        }
        #expect(iq.selectiveAckIds == ["0:1%abc"])
        var out = ByteBuffer()
        MCSMessage.iqStanza(.acknowledging(["0:1%abc"])).encode(into: &out)
        #expect(Array(out.readableBytesView) == Array(ack.dropFirst()))
        let more = try frames([41] + Self.hex("01 02 10 03 04 00"))
        guard case .heartbeatAck(let heartbeat) = try MCSMessage(more[0]), case .close = try MCSMessage(more[1]) else {
            Issue.record("not a heartbeat ack and a close")
            return
        }
        #expect(heartbeat.lastStreamIdReceived == 3)
    }

    @Test func framesSplitAnywhereDecodeTheSame() throws {
        let stream = Self.login + Self.hex("00 00 04 00")
        for cut in 1..<stream.count {
            var decoder = MCSFrameDecoder(maxFrameBytes: 1024)
            var buffer = ByteBuffer(bytes: stream[..<cut])
            var got: [MCSFrame] = []
            while let frame = try decoder.next(&buffer) { got.append(frame) }
            buffer.writeBytes(stream[cut...])
            while let frame = try decoder.next(&buffer) { got.append(frame) }
            #expect(got.map(\.tag) == [2, 0, 4], "cut at \(cut)")
        }
    }

    @Test func theDecoderKeepsNIOsRules() throws {
        // Replayed ten times into one decoder: the frames without the connection's version byte.
        let stream = Array(Self.login.dropFirst()) + Self.hex("00 00 04 00")
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [(ByteBuffer(bytes: stream), try frames([41] + stream))],
            decoderFactory: { MCSFrameDecoder(maxFrameBytes: 1024, versionByte: false) })
    }

    @Test func badStreamsAreNamed() throws {
        #expect(throws: MCSFrameError.unsupportedVersion(7)) { try frames([7, 0, 0]) }
        #expect(throws: MCSFrameError.unknownTag(16)) { try frames([41, 16, 0]) }
        // The size is refused before its bytes arrive.
        #expect(throws: MCSFrameError.tooLarge(size: 2000, limit: 1024)) { try frames([41, 8, 0xD0, 0x0F], max: 1024) }
        #expect(throws: MCSFrameError.malformedSize) { try frames([41, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) }
        // A login without its user or token, and a field of the wrong type, are not logins.
        #expect(throws: ProtobufError.self) { try MCSMessage(MCSFrame(tag: 2, payload: Self.hex("0a 01 41"))) }
        #expect(throws: ProtobufError.self) { try MCSMessage(MCSFrame(tag: 2, payload: Self.hex("18 01"))) }
        #expect(throws: ProtobufError.overlongVarint) { try MCSMessage(MCSFrame(tag: 0, payload: Self.hex("08 ff ff ff ff ff ff ff ff ff ff 01"))) }
        #expect(throws: ProtobufError.truncated) { try MCSMessage(MCSFrame(tag: 8, payload: Self.hex("1a 05 41"))) }
        #expect(throws: ProtobufError.unsupportedWireType(3)) { try MCSMessage(MCSFrame(tag: 8, payload: Self.hex("0b"))) }
    }

    @Test func aDataMessageRoundTrips() throws {
        var message = MCSDataMessage(from: "BDOU99", category: "org.chromium.linux")
        message.id = "ABCDEF12"
        message.appData = [("google.source", "webpush"), ("subtype", "wp:x#1")]
        message.persistentId = "0:1%0000000000000001"
        message.ttl = 240
        message.sent = 1_764_000_000_000
        message.rawData = [1, 2, 3]
        message.lastStreamIdReceived = 6
        var out = ByteBuffer()
        MCSMessage.dataMessage(message).encode(into: &out)
        let bytes = Array(out.readableBytesView)
        let frame = try #require(try frames([41] + bytes).first)
        guard case .dataMessage(let back) = try MCSMessage(frame) else {
            Issue.record("not a data message")
            return
        }
        #expect(back == message)
        #expect(MCSWire.decodeAll([41] + bytes + Self.hex("00 00")) == 2)
    }
}
