// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// `AndroidCheckinRequest`, the fields a check-in is answered by (Chromium
/// google_apis/gcm/protocol/checkin.proto): the id and token of an earlier check-in, when the
/// client names one. The device description (`checkin`, Chrome's build or an Android build)
/// is read past: it changes nothing here.
struct CheckinRequest {
    /// Field 2, `int64`: the Android id of an earlier check-in.
    var androidId: Int64?
    /// Field 13, `fixed64`: its security token.
    var securityToken: UInt64?
    /// Field 14.
    var version: Int32?

    init(decoding bytes: [UInt8]) throws(ProtobufError) {
        var sawCheckin = false
        for field in try ProtobufReader.fields(bytes[...]) {
            switch field.number {
            case 2:
                guard case .varint = field.value else { throw .wrongType(field: 2) }
                androidId = field.int64
            case 4:
                guard let inner = field.bytes else { throw .wrongType(field: 4) }
                _ = try ProtobufReader.fields(inner)
                sawCheckin = true
            case 13:
                guard case .fixed64(let token) = field.value else { throw .wrongType(field: 13) }
                securityToken = token
            case 14: version = field.int32
            default: break
            }
        }
        // proto2 `required AndroidCheckinProto checkin = 4`.
        guard sawCheckin else { throw .missing("AndroidCheckinRequest.checkin") }
    }
}

/// `AndroidCheckinResponse` (checkin.proto): `stats_ok` (required), the time, and the device's
/// id and token as `fixed64`, which clients read back as decimal strings.
struct CheckinResponse {
    var statsOk: Bool
    var timeMsec: Int64
    var androidId: UInt64
    var securityToken: UInt64

    func encoded() -> [UInt8] {
        var w = ProtobufWriter()
        w.bool(1, statsOk)
        w.int64(3, timeMsec)
        w.fixed64(7, androidId)
        w.fixed64(8, securityToken)
        return w.bytes
    }
}
