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
