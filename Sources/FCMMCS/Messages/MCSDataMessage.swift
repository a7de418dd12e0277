// SPDX-License-Identifier: Apache-2.0

import FCMTransport

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
