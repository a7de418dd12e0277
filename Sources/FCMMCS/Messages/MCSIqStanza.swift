// SPDX-License-Identifier: Apache-2.0

import FCMTransport

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
