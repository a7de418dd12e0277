// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import FCMTransport
import _CryptoExtras

/// The OAuth 2 token endpoint for service-account JWT bearer assertions
/// (https://developers.google.com/identity/protocols/oauth2/service-account; docs/http-v1.md): what
/// google-auth calls at the key file's `token_uri`. Errors are RFC 6749 JSON in Google's wording,
/// checked in the real endpoint's order.
struct TokenEndpoint: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Audiences clients put in the assertion; `aud` is never required to be the emulator's URL: google-auth-library-python
    /// writes Google's token URL whatever the key file says (`google/oauth2/service_account.py`).
    static let audiences: Set<String> = [
        "https://oauth2.googleapis.com/token", "https://accounts.google.com/o/oauth2/token",
        "https://www.googleapis.com/oauth2/v4/token",
    ]

    let emulator: Emulator
    let accounts: ServiceAccounts
    let grants: AccessGrants
    /// Wall time in seconds: assertions carry wall-clock `iat`/`exp`, whatever the emulator clock says.
    let wallSeconds: @Sendable () -> Int64

    /// The paths this endpoint answers on, Google's three token paths.
    static let paths = ["/token", "/o/oauth2/token", "/oauth2/v4/token"]

    func register(into router: inout Router) {
        router.mount(.oauth, ["/token", "/o/oauth2/*", "/oauth2/*"], dialect: Self.dialect)
        for path in Self.paths {
            router.add("POST", path) { request, _ in respond(request) }
        }
    }

    /// Google's pages, and OAuth's own `{"error", "error_description"}` (RFC 6749 §5.2) for an
    /// injected status.
    static let dialect = GoogleFrontEnd.dialect.injecting { status in
        HTTPResponse(
            status: status, contentType: "application/json; charset=utf-8",
            body: JSONValue.object([
                ("error", .string(status >= 500 ? "temporarily_unavailable" : "invalid_request")),
                ("error_description", .string("Injected error \(status).")),
            ]).encoded())
    }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        let form = Dictionary(
            HTTPRequest.parseQuery(String(decoding: request.body, as: UTF8.self)), uniquingKeysWith: { first, _ in first })
        switch issue(form: form, requestHost: request.header("Host")) {
        case .success(let grant):
            let body = JSONValue.object([
                ("access_token", .string(grant.token)), ("expires_in", .int(AccessGrants.lifetimeSeconds - 1)),
                ("token_type", .string("Bearer")),
            ])
            return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: body.encoded(.pretty) + "\n")
        case .failure(let failure):
            let body = JSONValue.object([("error", .string(failure.error)), ("error_description", .string(failure.description))])
            return HTTPResponse(status: 400, contentType: "application/json; charset=utf-8", body: body.encoded(.pretty) + "\n")
        }
    }

    struct Failure: Error {
        let error: String
        let description: String
    }

    func issue(form: [String: String], requestHost: String?) -> Result<AccessGrants.Grant, Failure> {
        let grantType = form["grant_type"] ?? ""
        guard grantType == Self.grantType else {
            return .failure(Failure(error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType)"))
        }
        guard let assertion = form["assertion"], let jwt = JWT(assertion) else {
            return .failure(Failure(error: "invalid_request", description: "Bad Request"))
        }
        // By `kid` when the client sends one; by `iss` only when it does not (node-gtoken sends no `kid`).
        let keyId = jwt.header["kid"]?.stringValue
        let account = keyId.map(accounts.account(keyId:)) ?? jwt.claims["iss"]?.stringValue.flatMap(accounts.account(email:))
        guard jwt.header["alg"]?.stringValue == "RS256", let account,
            case let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature),
            account.publicKey.isValidSignature(signature, for: SHA256.hash(data: jwt.signedPart), padding: .insecurePKCS1v1_5)
        else {
            if jwt.header["alg"]?.stringValue == "RS256", account == nil, keyId == nil {
                return .failure(Failure(error: "invalid_grant", description: "Invalid grant: account not found"))
            }
            return .failure(Failure(error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        guard jwt.claims["iss"]?.stringValue == account.clientEmail else {
            return .failure(Failure(error: "invalid_grant", description: "Invalid grant: account not found"))
        }
        guard let iat = Self.seconds(jwt.claims["iat"]) else {
            return .failure(Failure(error: "invalid_grant", description: "Invalid JWT: iat (issued at) is not set."))
        }
        guard let exp = Self.seconds(jwt.claims["exp"]) else {
            return .failure(Failure(error: "invalid_grant", description: "Invalid JWT: exp (expiration time) is not set."))
        }
        let now = wallSeconds()
        // The claims are the peer's numbers: their difference may not fit.
        let (lifetime, overflowed) = exp.subtractingReportingOverflow(iat)
        guard exp > iat, !overflowed, lifetime <= 3600 + 60, iat <= now + 60, exp >= now - 60 else {
            return .failure(
                Failure(
                    error: "invalid_grant",
                    description:
                        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
                        + " Check your iat and exp values in the JWT claim."
                ))
        }
        let scopes = (jwt.claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard !scopes.isEmpty else {
            return .failure(Failure(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided."))
        }
        let audience = jwt.claims["aud"]?.stringValue ?? ""
        guard Self.audiences.contains(audience) || Self.isOwnURL(audience, requestHost: requestHost) else {
            return .failure(Failure(error: "invalid_grant", description: "Invalid JWT: Failed audience check."))
        }
        return .success(grants.issue(projectId: account.projectId, scopes: Set(scopes), via: "jwt-bearer", recordingIn: emulator))
    }

    /// Whether `aud` names this endpoint (golang/oauth2 sends the key file's `token_uri`): any of its
    /// token paths, over http or https, on the host the request reached at any port (a key file
    /// fetched over HTTP may be used against the TLS port), with `localhost` and `127.0.0.1` alike.
    static func isOwnURL(_ audience: String, requestHost: String?) -> Bool {
        guard let requestHost else { return false }
        let rest: Substring
        if audience.hasPrefix("http://") {
            rest = audience.dropFirst("http://".count)
        } else if audience.hasPrefix("https://") {
            rest = audience.dropFirst("https://".count)
        } else {
            return false
        }
        guard let slash = rest.firstIndex(of: "/"), paths.contains(String(rest[slash...])) else { return false }
        let wanted = hostName(rest[..<slash]), reached = hostName(Substring(requestHost))
        return wanted == reached || (loopback.contains(wanted) && loopback.contains(reached))
    }

    private static let loopback: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// The host of an authority without its port: `127.0.0.1:9092` → `127.0.0.1`, `[::1]:9093` → `[::1]`.
    private static func hostName(_ authority: Substring) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? authority).lowercased()
    }

    /// A NumericDate claim (RFC 7519 §2): a number, or digits in a string.
    private static func seconds(_ value: JSONValue?) -> Int64? {
        value?.int64Value ?? value?.stringValue.flatMap { Int64($0) }
    }
}

/// A compact JWS split into its parts; nil when it is not three base64url segments of JSON.
struct JWT {
    let header: JSONValue
    let claims: JSONValue
    let signature: [UInt8]
    let signedPart: [UInt8]

    init?(_ compact: String) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        let decode = { (part: Substring) in Base64URLCodec.decode(part, maxBytes: 1 << 20) }
        guard parts.count == 3, let headerBytes = decode(parts[0]), let claimBytes = decode(parts[1]), let signature = decode(parts[2]),
            let header = try? JSONParser.parse(headerBytes), let claims = try? JSONParser.parse(claimBytes),
            case .object = header, case .object = claims
        else { return nil }
        self.header = header
        self.claims = claims
        self.signature = signature
        signedPart = Array("\(parts[0]).\(parts[1])".utf8)
    }
}
