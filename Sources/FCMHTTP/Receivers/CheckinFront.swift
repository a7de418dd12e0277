// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport

/// Android check-in and GCM registration on `android.clients.google.com`, as Chrome and
/// firebase-messaging call them (docs/receivers.md, "Registration"; Chromium
/// google_apis/gcm/engine/checkin_request.cc and registration_request.cc).
struct CheckinFront: Sendable {
    let emulator: Emulator

    func register(into router: inout Router) {
        router.mount(.checkin, ["/checkin", "/c2dm/*"], dialect: Self.dialect)
        router.add("POST", "/checkin") { request, _ in checkin(request) }
        router.add("POST", "/c2dm/register3") { request, _ in register(request) }
    }

    /// Plain text, as these endpoints answer outside their success bodies.
    static let dialect = Dialect(
        notFound: { _, allowed in
            allowed.isEmpty ? text(404, "Error=NOT_FOUND\n") : text(405, "Error=METHOD_NOT_ALLOWED\n", headers: [("Allow", allowed.joined(separator: ", "))])
        },
        tooLarge: { _ in text(413, "Error=REQUEST_TOO_LARGE\n") }, refused: GoogleFrontEnd.refused,
        injected: { status in text(status, "Error=\(status == 503 ? "SERVICE_NOT_AVAILABLE" : "InternalServerError")\n") })

    static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: body)
        response.headers += headers
        return response
    }

    /// register3's refusals come with status 200 (`Error=<code>`), as GCM answers them: noted so
    /// they are `refused` events like any other front's.
    static func refused(_ code: String, status: Int = 200, _ detail: String) -> HTTPResponse {
        var response = text(status, "Error=" + code)
        response.refusals = [Refusal(api: "checkin", status: status, code: code, detail: detail)]
        return response
    }

    /// `AndroidCheckinRequest` → `AndroidCheckinResponse` (Chromium checkin.proto). A malformed
    /// body is 400; an id with another token 401 (the client then checks in afresh).
    private func checkin(_ request: HTTPRequest) -> HTTPResponse {
        let parsed: CheckinRequest
        do {
            parsed = try CheckinRequest(decoding: request.body)
        } catch {
            return Self.text(400, "Bad check-in request: \(error)\n")
        }
        let given = parsed.androidId.flatMap { $0 > 0 ? UInt64($0) : nil }
        do throws(ReceiverRefusal) {
            let made = try emulator.checkin(androidId: given, securityToken: given == nil ? nil : parsed.securityToken)
            let body = CheckinResponse(
                statsOk: true, timeMsec: made.now.millis, androidId: made.androidId, securityToken: made.securityToken
            ).encoded()
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-protobuf")], body: body)
        } catch {
            switch error {
            case .unauthenticated: return Self.text(401, "Unauthorized\n")
            case .exhausted(let m): return Self.text(503, m + "\n")
            case .invalid(let m, _), .notFound(let m): return Self.text(400, m + "\n")
            }
        }
    }

    /// `/c2dm/register3`: a form (`app`, `X-subtype`, `device`, `sender`) with
    /// `Authorization: AidLogin <android id>:<security token>`; the answer is `token=<token>` or
    /// `Error=<code>` (Chromium registration_request.cc's codes), with status 200 as GCM gives them.
    private func register(_ request: HTTPRequest) -> HTTPResponse {
        guard let credentials = Self.aidLogin(request.header("Authorization")) else {
            return Self.refused("AUTHENTICATION_FAILED", status: 401, "no Authorization: AidLogin <android id>:<security token>")
        }
        let form = HTTPRequest.parseQuery(String(decoding: request.body, as: UTF8.self))
        func field(_ name: String) -> String? { form.first { $0.0 == name }?.1 }
        guard let app = field("app"), let sender = field("sender"), !app.isEmpty, !sender.isEmpty else {
            return Self.refused("INVALID_PARAMETERS", "app and sender are required")
        }
        if let device = field("device"), device != String(credentials.androidId) {
            return Self.refused("INVALID_PARAMETERS", "device is not the Android id of AidLogin")
        }
        do throws(ReceiverRefusal) {
            let token = try emulator.registerGCM(
                androidId: credentials.androidId, securityToken: credentials.securityToken, app: app, subtype: field("X-subtype") ?? "",
                sender: sender)
            // No newline: firebase-messaging takes everything after `=` as the token.
            return Self.text(200, "token=" + token)
        } catch {
            switch error {
            case .unauthenticated(let m): return Self.refused("AUTHENTICATION_FAILED", status: 401, m)
            case .exhausted(let m): return Self.refused("TOO_MANY_REGISTRATIONS", m)
            case .invalid(let m, _), .notFound(let m): return Self.refused("INVALID_PARAMETERS", m)
            }
        }
    }

    /// `AidLogin <android id>:<security token>`, both decimal.
    static func aidLogin(_ header: String?) -> (androidId: UInt64, securityToken: UInt64)? {
        guard let header, header.hasPrefix("AidLogin ") else { return nil }
        let parts = header.dropFirst(9).split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let id = UInt64(parts[0].trimming()),
            let token = UInt64(parts[1].trimming())
        else { return nil }
        return (id, token)
    }
}
