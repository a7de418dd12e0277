// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Firebase Installations, as web and Chrome clients call it on
/// `firebaseinstallations.googleapis.com` (docs/receivers.md, "Registration"): create an
/// installation, refresh its auth token, delete it. Shapes from the Firebase JS SDK
/// (packages/installations/src/functions/create-installation-request.ts,
/// generate-auth-token-request.ts, delete-installation-request.ts).
struct InstallationsFront: Sendable {
    let emulator: Emulator
    static let service = "firebaseinstallations.googleapis.com"

    func register(into router: inout Router) {
        // Beneath v1's mount (`/v1/*`); logged and faulted as their own API.
        router.add("POST", "/v1/projects/{project}/installations", api: .installations) { request, p in
            create(request, project: p["project"] ?? "")
        }
        router.add("POST", "/v1/projects/{project}/installations/{fid}/authTokens:generate", api: .installations) { request, p in
            generate(request, project: p["project"] ?? "", fid: p["fid"] ?? "")
        }
        router.add("DELETE", "/v1/projects/{project}/installations/{fid}", api: .installations) { request, p in
            delete(request, project: p["project"] ?? "", fid: p["fid"] ?? "")
        }
    }

    private func create(_ request: HTTPRequest, project: String) -> HTTPResponse {
        if let refused = ReceiverAPIError.checkAPIKey(request, service: Self.service) { return refused }
        let body: JSONValue
        switch ReceiverAPIError.object(request) {
        case .success(let value): body = value
        case .failure(let refusal): return ReceiverAPIError.response(refusal)
        }
        guard let fid = body["fid"]?.stringValue, let appId = body["appId"]?.stringValue else {
            return ReceiverAPIError.response(.invalid("fid and appId are required", field: body["fid"] == nil ? "fid" : "appId"))
        }
        do throws(ReceiverRefusal) {
            let made = try emulator.createInstallation(project: project, fid: fid, appId: appId)
            return V1Response.json(
                .object([
                    ("name", .string("projects/\(made.projectNumber)/installations/\(made.fid)")), ("fid", .string(made.fid)),
                    ("refreshToken", .string(made.refreshToken)), ("authToken", Self.authToken(made)),
                ]))
        } catch {
            return ReceiverAPIError.response(error)
        }
    }

    private static func authToken(_ made: Emulator.Installation) -> JSONValue {
        .object([("token", .string(made.authToken)), ("expiresIn", .string("\(made.expiresInSeconds)s"))])
    }

    /// `Authorization: FIS_v2 <refresh token>` (generate-auth-token-request.ts, `getAuthorizationHeader`).
    private static func refreshToken(_ request: HTTPRequest) -> String? {
        guard let value = request.header("Authorization"), value.hasPrefix("FIS_v2 ") else { return nil }
        return String(value.dropFirst(7)).trimming()
    }

    private func generate(_ request: HTTPRequest, project: String, fid: String) -> HTTPResponse {
        if let refused = ReceiverAPIError.checkAPIKey(request, service: Self.service) { return refused }
        guard let refresh = Self.refreshToken(request) else {
            return ReceiverAPIError.response(.unauthenticated("Request is missing required authentication credential. Expected FIS_v2 refresh token."))
        }
        do throws(ReceiverRefusal) {
            return V1Response.json(Self.authToken(try emulator.generateAuthToken(project: project, fid: fid, refreshToken: refresh)))
        } catch {
            return ReceiverAPIError.response(error)
        }
    }

    private func delete(_ request: HTTPRequest, project: String, fid: String) -> HTTPResponse {
        if let refused = ReceiverAPIError.checkAPIKey(request, service: Self.service) { return refused }
        guard let refresh = Self.refreshToken(request) else {
            return ReceiverAPIError.response(.unauthenticated("Request is missing required authentication credential. Expected FIS_v2 refresh token."))
        }
        do throws(ReceiverRefusal) {
            try emulator.deleteInstallation(project: project, fid: fid, refreshToken: refresh)
            return V1Response.json(.object([]))
        } catch {
            return ReceiverAPIError.response(error)
        }
    }
}
