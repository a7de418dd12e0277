// SPDX-License-Identifier: Apache-2.0

import FCMTransport
import NIOCore

/// The MCS messages this server reads and writes, by tag (Chromium google_apis/gcm/protocol/
/// mcs.proto and engine/connection_handler_impl.cc; firebase-messaging's `MCS_MESSAGE_TAG`).
package enum MCSMessage {
    case heartbeatPing(MCSHeartbeat)
    case heartbeatAck(MCSHeartbeat)
    case loginRequest(MCSLoginRequest)
    case loginResponse(MCSLoginResponse)
    case close
    case iqStanza(MCSIqStanza)
    case dataMessage(MCSDataMessage)
    case streamError(type: String, text: String?)
    /// Presence, HTTP, account binding and talk metadata (tags 5, 6, 9, 11–15): read and dropped,
    /// as Chromium's client does.
    case ignored(tag: UInt8)

    package var tag: UInt8 {
        switch self {
        case .heartbeatPing: 0
        case .heartbeatAck: 1
        case .loginRequest: 2
        case .loginResponse: 3
        case .close: 4
        case .iqStanza: 7
        case .dataMessage: 8
        case .streamError: 10
        case .ignored(let tag): tag
        }
    }

    package init(_ frame: MCSFrame) throws(ProtobufError) {
        let fields = try ProtobufReader.fields(frame.payload[...])
        switch frame.tag {
        case 0: self = .heartbeatPing(MCSHeartbeat(fields))
        case 1: self = .heartbeatAck(MCSHeartbeat(fields))
        case 2: self = .loginRequest(try MCSLoginRequest(fields))
        case 3: self = .loginResponse(MCSLoginResponse(fields))
        case 4: self = .close
        case 7: self = .iqStanza(try MCSIqStanza(fields))
        case 8: self = .dataMessage(try MCSDataMessage(fields))
        case 10:
            self = .streamError(type: fields.last { $0.number == 1 }?.string ?? "", text: fields.last { $0.number == 2 }?.string)
        default: self = .ignored(tag: frame.tag)
        }
    }

    package var payload: [UInt8] {
        var w = ProtobufWriter()
        switch self {
        case .heartbeatPing(let h), .heartbeatAck(let h): h.write(&w)
        case .loginRequest(let m): m.write(&w)
        case .loginResponse(let m): m.write(&w)
        case .iqStanza(let m): m.write(&w)
        case .dataMessage(let m): m.write(&w)
        case .streamError(let type, let text):
            w.string(1, type)
            if let text { w.string(2, text) }
        case .close, .ignored: break
        }
        return w.bytes
    }

    /// Tag, size and payload (the version byte, before a side's first message, is the caller's).
    package func encode(into buffer: inout ByteBuffer) {
        let payload = self.payload
        buffer.writeInteger(tag)
        var size = UInt32(payload.count)
        while size >= 0x80 {
            buffer.writeInteger(UInt8(truncatingIfNeeded: size) | 0x80)
            size >>= 7
        }
        buffer.writeInteger(UInt8(size))
        buffer.writeBytes(payload)
    }
}

/// `HeartbeatPing` and `HeartbeatAck` (the same fields).
package struct MCSHeartbeat: Equatable {
    package var streamId: Int32?
    package var lastStreamIdReceived: Int32?
    package var status: Int64?

    package init(streamId: Int32? = nil, lastStreamIdReceived: Int32? = nil, status: Int64? = nil) {
        self.streamId = streamId
        self.lastStreamIdReceived = lastStreamIdReceived
        self.status = status
    }

    init(_ fields: [ProtobufReader.Field]) {
        for f in fields {
            switch f.number {
            case 1: streamId = f.int32
            case 2: lastStreamIdReceived = f.int32
            case 3: status = f.int64
            default: break
            }
        }
    }

    func write(_ w: inout ProtobufWriter) {
        if let streamId { w.int32(1, streamId) }
        if let lastStreamIdReceived { w.int32(2, lastStreamIdReceived) }
        if let status { w.int64(3, status) }
    }
}

/// `LoginRequest`: what a receiver logs in with. `user` and `auth_token` are its check-in's
/// Android id and security token, in decimal (firebase-messaging `_login`; Chromium
/// `BuildLoginRequest`).
package struct MCSLoginRequest: Equatable {
    package var id = ""
    package var domain = ""
    package var user = ""
    package var resource = ""
    package var authToken = ""
    package var deviceId: String?
    package var settings: [Setting] = []
    package var receivedPersistentIds: [String] = []
    package var adaptiveHeartbeat: Bool?
    /// `heartbeat_stat.interval_ms`, when sent.
    package var heartbeatIntervalMillis: Int32?
    package var useRmq2: Bool?
    package var authService: Int32?
    package var networkType: Int32?

    package struct Setting: Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package init() {}

    init(_ fields: [ProtobufReader.Field]) throws(ProtobufError) {
        for f in fields {
            switch f.number {
            case 1: id = try Self.text(f)
            case 2: domain = try Self.text(f)
            case 3: user = try Self.text(f)
            case 4: resource = try Self.text(f)
            case 5: authToken = try Self.text(f)
            case 6: deviceId = try Self.text(f)
            case 8:
                var name = ""
                var value = ""
                for s in try ProtobufReader.fields(try Self.raw(f)) {
                    if s.number == 1 { name = s.string ?? "" }
                    if s.number == 2 { value = s.string ?? "" }
                }
                settings.append(Setting(name: name, value: value))
            case 10: receivedPersistentIds.append(try Self.text(f))
            case 12: adaptiveHeartbeat = f.bool
            case 13:
                for s in try ProtobufReader.fields(try Self.raw(f)) where s.number == 3 { heartbeatIntervalMillis = s.int32 }
            case 14: useRmq2 = f.bool
            case 16: authService = f.int32
            case 17: networkType = f.int32
            default: break
            }
        }
        // proto2 `required` (mcs.proto): without them there is no one to log in.
        guard !user.isEmpty else { throw .missing("LoginRequest.user") }
        guard !authToken.isEmpty else { throw .missing("LoginRequest.auth_token") }
    }

    static func text(_ f: ProtobufReader.Field) throws(ProtobufError) -> String {
        guard let s = f.string else { throw .wrongType(field: f.number) }
        return s
    }

    static func raw(_ f: ProtobufReader.Field) throws(ProtobufError) -> ArraySlice<UInt8> {
        guard let b = f.bytes else { throw .wrongType(field: f.number) }
        return b
    }

    func write(_ w: inout ProtobufWriter) {
        w.string(1, id)
        w.string(2, domain)
        w.string(3, user)
        w.string(4, resource)
        w.string(5, authToken)
        if let deviceId { w.string(6, deviceId) }
        for s in settings {
            var inner = ProtobufWriter()
            inner.string(1, s.name)
            inner.string(2, s.value)
            w.message(8, inner)
        }
        for id in receivedPersistentIds { w.string(10, id) }
        if let adaptiveHeartbeat { w.bool(12, adaptiveHeartbeat) }
        if let heartbeatIntervalMillis {
            var stat = ProtobufWriter()
            stat.string(1, "")
            stat.bool(2, true)
            stat.int32(3, heartbeatIntervalMillis)
            w.message(13, stat)
        }
        if let useRmq2 { w.bool(14, useRmq2) }
        if let authService { w.int32(16, authService) }
        if let networkType { w.int32(17, networkType) }
    }
}

/// mcs.proto `ErrorInfo`.
package struct MCSErrorInfo: Equatable {
    package var code: Int32
    package var message: String?

    package init(code: Int32, message: String?) {
        self.code = code
        self.message = message
    }
}

/// `LoginResponse`. `error` is set only on a refusal: firebase-messaging treats any `error`, even
/// code 0, as a failed login.
package struct MCSLoginResponse: Equatable {
    package var id: String
    package var jid: String?
    package var error: MCSErrorInfo?
    package var streamId: Int32?
    package var lastStreamIdReceived: Int32?
    package var serverTimestamp: Int64?

    package init(id: String) { self.id = id }

    init(_ fields: [ProtobufReader.Field]) {
        id = ""
        for f in fields {
            switch f.number {
            case 1: id = f.string ?? ""
            case 2: jid = f.string
            case 3:
                var code: Int32 = 0
                var message: String?
                for e in (try? ProtobufReader.fields(f.bytes ?? [])) ?? [] {
                    if e.number == 1 { code = e.int32 ?? 0 }
                    if e.number == 2 { message = e.string }
                }
                error = MCSErrorInfo(code: code, message: message)
            case 5: streamId = f.int32
            case 6: lastStreamIdReceived = f.int32
            case 8: serverTimestamp = f.int64
            default: break
            }
        }
    }

    func write(_ w: inout ProtobufWriter) {
        w.string(1, id)
        if let jid { w.string(2, jid) }
        if let error {
            var e = ProtobufWriter()
            e.int32(1, error.code)
            if let message = error.message { e.string(2, message) }
            w.message(3, e)
        }
        if let streamId { w.int32(5, streamId) }
        if let lastStreamIdReceived { w.int32(6, lastStreamIdReceived) }
        if let serverTimestamp { w.int64(8, serverTimestamp) }
    }
}

/// `IqStanza`; receivers send selective acks in it (extension 12, `SelectiveAck`).
package struct MCSIqStanza: Equatable {
    package enum IqType: Int32 { case get = 0, set = 1, result = 2, error = 3 }
    /// Extension ids (firebase-messaging `MCS_SELECTIVE_ACK_ID`, `MCS_STREAM_ACK_ID`).
    package static let selectiveAck: Int32 = 12
    package static let streamAck: Int32 = 13

    package var type: Int32 = 1
    package var id = ""
    package var extensionId: Int32?
    package var extensionData: [UInt8] = []

    package init(type: IqType, id: String, extensionId: Int32?, extensionData: [UInt8] = []) {
        self.type = type.rawValue
        self.id = id
        self.extensionId = extensionId
        self.extensionData = extensionData
    }

    /// An IQ acknowledging these persistent ids.
    package static func acknowledging(_ ids: [String]) -> MCSIqStanza {
        var ack = ProtobufWriter()
        for id in ids { ack.string(1, id) }
        return MCSIqStanza(type: .set, id: "", extensionId: selectiveAck, extensionData: ack.bytes)
    }

    init(_ fields: [ProtobufReader.Field]) throws(ProtobufError) {
        for f in fields {
            switch f.number {
            case 2: type = f.int32 ?? 0
            case 3: id = f.string ?? ""
            case 7:
                for e in try ProtobufReader.fields(try MCSLoginRequest.raw(f)) {
                    if e.number == 1 { extensionId = e.int32 }
                    if e.number == 2 { extensionData = Array(e.bytes ?? []) }
                }
            default: break
            }
        }
    }

    /// The persistent ids of a selective ack; nil for any other IQ.
    package var selectiveAckIds: [String]? {
        guard extensionId == Self.selectiveAck else { return nil }
        guard let fields = try? ProtobufReader.fields(extensionData[...]) else { return [] }
        return fields.filter { $0.number == 1 }.compactMap(\.string)
    }

    func write(_ w: inout ProtobufWriter) {
        w.int32(2, type)
        w.string(3, id)
        if let extensionId {
            var e = ProtobufWriter()
            e.int32(1, extensionId)
            e.bytes(2, extensionData)
            w.message(7, e)
        }
    }
}

/// `DataMessageStanza`: a message delivered to the receiver.
package struct MCSDataMessage: Equatable {
    package var id: String?
    package var from: String
    package var to: String?
    package var category: String
    package var appData: [(String, String)] = []
    package var persistentId: String?
    package var lastStreamIdReceived: Int32?
    package var ttl: Int32?
    package var sent: Int64?
    package var rawData: [UInt8]?

    package init(from: String, category: String) {
        self.from = from
        self.category = category
    }

    package static func == (a: MCSDataMessage, b: MCSDataMessage) -> Bool {
        a.id == b.id && a.from == b.from && a.to == b.to && a.category == b.category && a.appData.elementsEqual(b.appData, by: ==)
            && a.persistentId == b.persistentId && a.lastStreamIdReceived == b.lastStreamIdReceived && a.ttl == b.ttl && a.sent == b.sent
            && a.rawData == b.rawData
    }

    init(_ fields: [ProtobufReader.Field]) throws(ProtobufError) {
        from = ""
        category = ""
        for f in fields {
            switch f.number {
            case 2: id = f.string
            case 3: from = f.string ?? ""
            case 4: to = f.string
            case 5: category = f.string ?? ""
            case 7:
                var key = ""
                var value = ""
                for e in try ProtobufReader.fields(try MCSLoginRequest.raw(f)) {
                    if e.number == 1 { key = e.string ?? "" }
                    if e.number == 2 { value = e.string ?? "" }
                }
                appData.append((key, value))
            case 9: persistentId = f.string
            case 11: lastStreamIdReceived = f.int32
            case 17: ttl = f.int32
            case 18: sent = f.int64
            case 21: rawData = f.bytes.map(Array.init)
            default: break
            }
        }
    }

    func write(_ w: inout ProtobufWriter) {
        if let id { w.string(2, id) }
        w.string(3, from)
        if let to { w.string(4, to) }
        w.string(5, category)
        for (key, value) in appData {
            var pair = ProtobufWriter()
            pair.string(1, key)
            pair.string(2, value)
            w.message(7, pair)
        }
        if let persistentId { w.string(9, persistentId) }
        if let lastStreamIdReceived { w.int32(11, lastStreamIdReceived) }
        if let ttl { w.int32(17, ttl) }
        if let sent { w.int64(18, sent) }
        if let rawData { w.bytes(21, rawData) }
    }
}

/// The one entry the fuzz harness (Fuzz/, an outside package) needs: every frame of `bytes`
/// decoded as far as it goes. Returns how many messages decoded.
public enum MCSWire {
    public static func decodeAll(_ bytes: [UInt8], maxFrameBytes: Int = 64 << 10) -> Int {
        var decoder = MCSFrameDecoder(maxFrameBytes: maxFrameBytes)
        var buffer = ByteBuffer(bytes: bytes)
        var count = 0
        while let frame = try? decoder.next(&buffer) {
            guard let message = try? MCSMessage(frame) else { continue }
            // Written back, as the server writes what it builds.
            var out = ByteBuffer()
            message.encode(into: &out)
            count += 1
        }
        return count
    }
}
