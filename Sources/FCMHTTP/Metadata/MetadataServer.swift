// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// The GCE metadata server on the HTTP port: with `GCE_METADATA_HOST` (or `_IP`) set to
/// the emulator, Application Default Credentials in every Admin SDK find "an instance" and take
/// its service account's access token from here, with no key file at all. The token is one the
/// emulator honours for `project` (the demo project unless `metadataProject` says otherwise).
///
/// As on GCE, every request must carry `Metadata-Flavor: Google` (403 otherwise: the header is
/// what stops a browser or a proxy from being tricked into fetching tokens), and every answer
/// carries it back, which is how the SDKs' "am I on GCE?" ping recognises the server.
package struct MetadataServer: Sendable {
    let emulator: Emulator
    let grants: AccessGrants
    let project: String

    static let base = "/computeMetadata/v1"
    package static let scopes = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/firebase.messaging"]

    func register(into router: inout Router) {
        router.mount(.metadata, ["/computeMetadata", "/computeMetadata/*"], dialect: GoogleFrontEnd.dialect)
        let b = Self.base
        // The SDKs' availability pings: google-auth and the Java client GET the root, gcp-metadata `/instance`.
        router.add("GET", b, metadata { _, _ in Self.text("instance/\nproject/\nuniverse/\n") })
        router.add("GET", b + "/instance", metadata { _, _ in Self.text("service-accounts/\n") })
        router.add("GET", b + "/project/project-id", metadata { _, project in Self.text(project.id) })
        router.add("GET", b + "/project/numeric-project-id", metadata { _, project in Self.text(project.number) })
        router.add("GET", b + "/universe/universe-domain", metadata { _, _ in Self.text("googleapis.com") })
        router.add(
            "GET", b + "/instance/service-accounts",
            metadata { _, project in
                Self.text("default/\n\(email(project))/\n")
            })
        let account = b + "/instance/service-accounts/{account}"
        router.add(
            "GET", account,
            metadata { request, project in
                // `?recursive=true`, as google-auth reads the account: its email, aliases and scopes.
                Self.json(
                    .object([
                        ("aliases", .array([.string("default")])), ("email", .string(email(project))),
                        ("scopes", .array(Self.scopes.map(JSONValue.string))),
                    ]))
            })
        router.add("GET", account + "/email", metadata { _, project in Self.text(email(project)) })
        router.add("GET", account + "/scopes", metadata { _, _ in Self.text(Self.scopes.joined(separator: "\n") + "\n") })
        router.add("GET", account + "/aliases", metadata { _, _ in Self.text("default\n") })
        router.add(
            "GET", account + "/token",
            metadata { request, project in
                // `?scopes=a,b` narrows the token as on GCE; without it, the account's scopes.
                let asked = request.queryValue("scopes")?.split(separator: ",").map(String.init) ?? Self.scopes
                let grant = grants.issue(projectId: project.id, scopes: Set(asked), via: "metadata", recordingIn: emulator)
                return Self.json(
                    .object([
                        ("access_token", .string(grant.token)), ("expires_in", .int(AccessGrants.lifetimeSeconds - 1)),
                        ("token_type", .string("Bearer")),
                    ]))
            })
    }

    /// The root ping of google-auth (Python) and the Java client, which ask `/` with the header;
    /// without the header the path is the emulator's ordinary 404.
    func root(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.header("Metadata-Flavor") == "Google" else { return nil }
        return Self.text("computeMetadata/\n")
    }

    /// The project's service account's address, which needs no key (naming the
    /// account made its 2048-bit RSA key on the event loop).
    private func email(_ project: Project) -> String { ServiceAccounts.email(project.id) }

    /// Checks the header and finds the project before the route answers.
    private func metadata(_ answer: @escaping @Sendable (HTTPRequest, Project) -> HTTPResponse) -> RouteHandler {
        { [emulator, project] request, _ in
            guard request.header("Metadata-Flavor") == "Google" else {
                var refused = HTTPResponse(status: 403, contentType: "text/html; charset=UTF-8", body: Self.missingHeaderPage)
                refused.headers.append(("Metadata-Flavor", "Google"))
                return refused
            }
            guard let found = try? emulator.project(project) else {
                return Self.text("The metadata server's project '\(project)' does not exist in the emulator", status: 404)
            }
            return answer(request, found)
        }
    }

    static let missingHeaderPage =
        "Your client does not have permission to get URL from this server. Missing Metadata-Flavor:Google header.\n"

    static func text(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/text"), ("Metadata-Flavor", "Google")], body: Array(body.utf8))
    }

    static func json(_ body: JSONValue) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Metadata-Flavor", "Google")], body: Array(body.encoded().utf8))
    }
}
