// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat
import FCMTransport

/// Device groups, `/fcm/notification` ("Device group messaging",
/// https://firebase.google.com/docs/cloud-messaging/android/device-group; docs/legacy.md): create,
/// add, remove and look up by name, for the sender named in the `project_id` header. Errors are `400 {"error": "<text>"}`.
struct DeviceGroupFront: Sendable {
    let emulator: Emulator
    let auth: Authenticator

    func register(into router: inout Router) {
        router.mount(.groups, ["/fcm/notification"], dialect: LegacyFront.dialect)
        router.add("POST", "/fcm/notification") { request, _ in change(request) }
        router.add("GET", "/fcm/notification") { request, _ in lookup(request) }
    }

    private static func error(_ text: String, status: Int = 400) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json; charset=UTF-8", body: JSONValue.object([("error", .string(text))]).encoded())
    }

    private static func key(_ group: DeviceGroup) -> HTTPResponse {
        LegacyFront.json(.object([("notification_key", .string(group.notificationKey))]))
    }

    /// The project the call acts for: the `project_id` header (a sender id), which must be the
    /// authenticated sender's.
    private enum ProjectCheck {
        case project(String)
        /// The answer to give instead: the credentials page, or the group API's own error.
        case refused(HTTPResponse)
    }

    private func project(_ request: HTTPRequest) -> ProjectCheck {
        let sender: String?
        switch auth.authenticateLegacy(request, concerns: { [request.header("project_id")] }) {
        case .failure(let failure): return .refused(failure.legacyPage)
        case .success(let s): sender = s
        }
        guard let header = request.header("project_id"), let named = try? emulator.project(header) else {
            return .refused(Self.error("project_id header is missing or names no project"))
        }
        if let sender, let authenticated = try? emulator.project(sender), authenticated.id != named.id {
            return .refused(AuthFailure.unauthenticated.legacyPage)
        }
        return .project(named.id)
    }

    private func lookup(_ request: HTTPRequest) -> HTTPResponse {
        let projectId: String
        switch project(request) {
        case .refused(let response): return response
        case .project(let p): projectId = p
        }
        guard let name = request.queryValue("notification_key_name"),
            let group = try? emulator.group(named: name, projectIdOrNumber: projectId)
        else {
            return Self.error("notification_key not found")
        }
        return Self.key(group)
    }

    private func change(_ request: HTTPRequest) -> HTTPResponse {
        let projectId: String
        switch project(request) {
        case .refused(let response): return response
        case .project(let p): projectId = p
        }
        guard let json = try? JSONParser.parse(request.body), case .object = json else { return Self.error("InvalidJSON") }
        let fields = LegacyFields(json)
        let operation: String?
        let name: String?
        let key: String?
        let tokens: [String]
        do throws(LegacyBadRequest) {
            operation = try fields.string("operation")
            name = try fields.string("notification_key_name")
            key = try fields.string("notification_key")
            tokens = try fields.strings("registration_ids") ?? []
        } catch {
            return Self.error(error.text)
        }
        do throws(FCMError) {
            switch operation {
            case "create":
                guard let name else { return Self.error("notification_key_name is missing") }
                return Self.key(try emulator.createGroup(name: name, tokens: tokens, projectIdOrNumber: projectId))
            case "add", "remove":
                guard let key else { return Self.error("notification_key is missing") }
                guard !tokens.isEmpty else { return Self.error("no valid registration ids") }
                let changed = try emulator.changeGroup(
                    key: key, name: name, add: operation == "add" ? tokens : [], remove: operation == "remove" ? tokens : [],
                    projectIdOrNumber: projectId
                )
                // Removing the last member deletes the group; the key is still the answer.
                return LegacyFront.json(.object([("notification_key", .string(changed?.notificationKey ?? key))]))
            default:
                return Self.error("Invalid operation: \(operation ?? "missing"); use create, add or remove")
            }
        } catch {
            return Self.error(Self.text(error))
        }
    }

    /// The real service's error strings, as client libraries quote them (docs/legacy.md, "Device groups").
    private static func text(_ error: FCMError) -> String {
        switch error.code {
        case .conflict: return "notification_key already exists"
        case .notFound: return "notification_key not found"
        case _ where error.reason == .groupNameMismatch:
            return "notification_key_name doesn't match the group name of the notification_key"
        case _ where error.reason == .groupMemberLimit: return "maximum number of members exceeded"
        case _ where error.reason == .groupLimit: return "maximum number of device groups exceeded"
        default: return "no valid registration ids"
        }
    }
}
