// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMLegacyFormat
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How strictly credentials are checked.
public enum AuthMode: String, Sendable, CaseIterable {
    /// As FCM does: bearer tokens from the token endpoint, legacy server keys of the project.
    case strict
    /// Any bearer token or server key is accepted (a missing one is still refused). For quick
    /// starts; projects whose id starts with `demo-` are always lax, as in Firebase's emulators.
    case lax
}

/// Why a call's credentials were refused, in each API's dialect: the one credentials error of
/// every front.
struct AuthFailure: Error {
    let status: Int
    let v1: V1Error
    let iidText: String
    /// The legacy endpoints' 401 HTML page (docs/legacy.md, "Sending").
    var legacyPage = LegacyPages.unauthorized(LegacyPages.invalidKey)

    /// A legacy call with no `Authorization` header at all: its own page.
    static let missingLegacyKey = {
        var failure = AuthFailure.unauthenticated
        failure.legacyPage = LegacyPages.unauthorized(LegacyPages.missingKey)
        return failure
    }()

    /// A bearer that is unknown or expired: Google's 401 UNAUTHENTICATED (https://cloud.google.com/apis/design/errors;
    /// docs/http-v1.md, "Credentials and tokens").
    static let unauthenticated = AuthFailure(
        status: 401,
        v1: V1Error(
            status: 401, statusName: "UNAUTHENTICATED",
            message:
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid"
                + " authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            details: []
        ),
        iidText: "Unauthorized"
    )

    static let insufficientScopes = AuthFailure(
        status: 403,
        v1: V1Error(status: 403, statusName: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.", details: []),
        iidText: "PermissionDenied"
    )

    /// A token of another project: 403 on the send permission, `cloudmessaging.messages.create`
    /// (https://cloud.google.com/iam/docs/roles-permissions/firebasecloudmessaging; docs/http-v1.md).
    static func permissionDenied(_ project: String) -> AuthFailure {
        AuthFailure(
            status: 403,
            v1: V1Error(
                status: 403, statusName: "PERMISSION_DENIED",
                message:
                    "Permission 'cloudmessaging.messages.create' denied on resource"
                    + " '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
                details: []
            ),
            iidText: "PermissionDenied"
        )
    }
}

extension AuthFailure {
    /// The Firebase Cloud Messaging API is off for the project (`Project.apiEnabled`): Google's 403
    /// for a service a project has not enabled, with the `ErrorInfo` SDKs and tools read
    /// (https://cloud.google.com/apis/design/errors, "Error info"; docs/http-v1.md, "An API that
    /// is not enabled"). The consumer is the project's number, as Google names it.
    static func serviceDisabled(_ project: Project) -> AuthFailure {
        let service = "fcm.googleapis.com"
        let title = "Firebase Cloud Messaging API"
        let activation = "https://console.developers.google.com/apis/api/\(service)/overview?project=\(project.number)"
        let message =
            "\(title) has not been used in project \(project.number) before or it is disabled. Enable it by visiting \(activation)"
            + " then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry."
        let details: [V1Error.Detail] = [
            .errorInfo(
                reason: "SERVICE_DISABLED", domain: "googleapis.com",
                metadata: [
                    ("service", service), ("consumer", "projects/\(project.number)"), ("activationUrl", activation),
                    ("serviceTitle", title), ("containerInfo", project.number),
                ]),
            .localizedMessage(locale: "en-US", message: message),
            .help(description: "Google developers console API activation", url: activation),
        ]
        return AuthFailure(
            status: 403, v1: V1Error(status: 403, statusName: "PERMISSION_DENIED", message: message, details: details),
            iidText: "PermissionDenied")
    }
}

/// A v1 call's credentials before the project they name is known.
enum V1Credentials {
    /// No bearer at all.
    case refused(AuthFailure)
    /// Lax mode: any bearer.
    case lax
    /// The grant the bearer carries, nil when it is not one of ours or has expired.
    case bearer(AccessGrants.Grant?)

    /// Whether the call is let in to `project` (nil: no such project), which the call `named` (id
    /// or number): projects whose id starts with `demo-` take any bearer, as Firebase's emulators
    /// do; others need a grant with a messaging scope for that very project. A project whose API
    /// is off answers `SERVICE_DISABLED` once the bearer is known, as Google's front end checks
    /// the consumer's services after the credentials and before the resource's permissions.
    func check(_ project: Project?, named: String) -> AuthFailure? {
        let disabled = project.flatMap { $0.apiEnabled ? nil : AuthFailure.serviceDisabled($0) }
        switch self {
        case .refused(let failure): return failure
        case .lax: return disabled
        case .bearer(let grant):
            if project?.id.hasPrefix("demo-") == true { return disabled }
            guard let grant else { return .unauthenticated }
            guard !grant.scopes.isDisjoint(with: Authenticator.messagingScopes) else { return .insufficientScopes }
            guard project?.id == grant.projectId else { return .permissionDenied(named) }
            return disabled
        }
    }
}

/// Checks credentials the way FCM does on its v1, IID and legacy endpoints (docs/http-v1.md,
/// "Credentials and tokens"; docs/legacy.md).
package final class Authenticator: Sendable {
    /// Scopes that FCM's send method accepts.
    static let messagingScopes: Set<String> = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/firebase.messaging",
    ]

    let mode: AuthMode
    let emulator: Emulator
    let accounts: ServiceAccounts
    let grants: AccessGrants

    init(mode: AuthMode, emulator: Emulator, accounts: ServiceAccounts, grants: AccessGrants) {
        self.mode = mode
        self.emulator = emulator
        self.accounts = accounts
        self.grants = grants
    }

    /// `Authorization: Bearer …`, or the standard `access_token` / `oauth_token` query parameters.
    static func bearer(_ request: HTTPRequest) -> String? {
        // `<scheme> <token>`, split at the first space after the scheme, from the contiguous bytes
        // (a Character split cost a send 3,700 instructions, the UTF-8 view's indices 2,000);
        // spaces before the scheme are skipped.
        if var header = request.header("Authorization") {
            let token = header.withUTF8 { bytes -> String? in
                var start = 0
                while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
                guard let space = bytes[start...].firstIndex(of: UInt8(ascii: " ")), space + 1 < bytes.count,
                    space - start == 6
                else { return nil }
                // `equalsIgnoringASCIICase("bearer")`: with only lower-case letters on one side,
                // a byte matches its letter or the letter's capital. As one word, first byte lowest.
                var scheme: UInt64 = 0
                for offset in 0..<6 { scheme |= UInt64(bytes[start + offset] | 0x20) << (8 * offset) }
                guard scheme == 0x7265_7261_6562 else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(space + 1)...]), as: UTF8.self)
            }
            if let token { return token }
        }
        return request.queryValue("access_token") ?? request.queryValue("oauth_token")
    }

    /// `Authorization: key=…`, the legacy server key.
    package static func serverKey(_ request: HTTPRequest) -> String? {
        guard let header = request.header("Authorization"), header.hasPrefix("key=") else { return nil }
        let key = String(header.dropFirst(4))
        return key.isEmpty ? nil : key
    }

    func isLax(_ projectIdOrNumber: String?) -> Bool {
        if mode == .lax { return true }
        guard let projectIdOrNumber, let project = try? emulator.project(projectIdOrNumber) else { return false }
        return project.id.hasPrefix("demo-")
    }

    /// A v1 call to `project` (id or number): nil when allowed.
    func authenticateV1(_ request: HTTPRequest, project: String) -> AuthFailure? {
        let credentials = v1Credentials(request)
        if case .refused(let failure) = credentials { return failure }
        return credentials.check(try? emulator.project(project), named: project)
    }

    /// A v1 call's credentials as far as they go before the project they name is known; a send
    /// weighs the rest in its own world call (`Emulator.send(_:from:multicastId:admit:)`).
    func v1Credentials(_ request: HTTPRequest) -> V1Credentials {
        guard let token = Self.bearer(request) else { return .refused(.unauthenticated) }
        if mode == .lax { return .lax }
        return .bearer(grants.grant(token))
    }

    /// How a legacy call names its sender, as far as that goes before the project is known: a
    /// server key is looked up in the send's own world call, with `admitsLegacy` deciding there.
    /// A bearer the emulator never issued is still taken when every project the call `concerns`
    /// (nil: the default project) is a `demo-` one: demo projects take any bearer on every API.
    func legacySender(_ request: HTTPRequest, concerns: () -> [String?] = { [] }) -> Result<Sender, AuthFailure> {
        guard let header = request.header("Authorization"), !header.isEmpty else { return .failure(.missingLegacyKey) }
        if let key = Self.serverKey(request) { return .success(.serverKey(key)) }
        if let token = Self.bearer(request), request.header("access_token_auth") == "true" {
            if let grant = grants.grant(token) { return .success(.project(grant.projectId)) }
            if mode == .lax { return .success(.tokenOwner) }
            let projects = concerns()
            let demoOnly = !projects.isEmpty && projects.allSatisfy { isLax($0 ?? DemoProject.id) }
            return demoOnly ? .success(.tokenOwner) : .failure(.unauthenticated)
        }
        return .failure(.unauthenticated)
    }

    /// Whether a legacy sender whose server key names `projectId` (nil: no project has it) is let in.
    func admitsLegacy(_ projectId: String?) -> Bool { projectId != nil || mode == .lax }

    /// An IID call about `registrationTokens`: the sender it acts for, or nil when lax (each
    /// token's own project). IID URLs name no project, so a call is lax when every token it names
    /// that the emulator knows belongs to a `demo-` project: demo projects take any credential on
    /// every API, as `messages:send` does.
    func authenticateIID(_ request: HTTPRequest, registrationTokens: [String]) -> Result<String?, AuthFailure> {
        let lax = mode == .lax || concernsOnlyLaxProjects(registrationTokens)
        if let key = Self.serverKey(request) {
            if let project = emulator.project(serverKey: key) { return .success(project.id) }
            return lax ? .success(nil) : .failure(.unauthenticated)
        }
        guard let token = Self.bearer(request) else { return .failure(.unauthenticated) }
        if let grant = grants.grant(token) {
            guard !grant.scopes.isDisjoint(with: Self.messagingScopes) else { return .failure(.insufficientScopes) }
            return .success(grant.projectId)
        }
        return lax ? .success(nil) : .failure(.unauthenticated)
    }

    /// True when the known tokens among these all belong to lax (`demo-`) projects, and there is one.
    private func concernsOnlyLaxProjects(_ registrationTokens: [String]) -> Bool {
        let projects = Set(registrationTokens.compactMap { emulator.device(token: $0)?.projectId })
        return !projects.isEmpty && projects.allSatisfy { isLax($0) }
    }

    /// A legacy call (`/fcm/send`, `/fcm/notification`): `key=<server key>`, or a bearer token with
    /// `access_token_auth: true`, as firebase-admin-node 11 sent it (`src/messaging/messaging-api-request-internal.ts`).
    /// The sender it acts for, or nil when lax (`legacySender`, with the server key looked up here).
    func authenticateLegacy(_ request: HTTPRequest, concerns: () -> [String?] = { [] }) -> Result<String?, AuthFailure> {
        legacySender(request, concerns: concerns).flatMap(resolve)
    }

    /// The project a legacy sender acts for (nil: each token's own), a server key looked up in a
    /// world call of its own: for calls that send nothing.
    func resolve(_ sender: Sender) -> Result<String?, AuthFailure> {
        switch sender {
        case .project(let project): return .success(project)
        case .tokenOwner: return .success(nil)
        case .serverKey(let key):
            let project = emulator.project(serverKey: key)?.id
            return admitsLegacy(project) ? .success(project) : .failure(.unauthenticated)
        }
    }
}
