// SPDX-License-Identifier: Apache-2.0

import FCMTransport

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
