// SPDX-License-Identifier: Apache-2.0

import FCMTransport

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
