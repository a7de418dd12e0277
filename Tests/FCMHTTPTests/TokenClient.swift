// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMJSON
import FCMTesting
import FCMTransport
import Foundation
import Testing
import _CryptoExtras

/// A service-account client as google-auth is one: signs assertions and trades them at `/token`.
enum TokenClient {
    static let scope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email"
    static let jwtBearer = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    /// Signs an assertion the way google-auth-library-python does (`google/oauth2/service_account.py`).
    static func assertion(_ keyFile: JSONValue, claims: [(String, JSONValue)]? = nil, header: JSONValue? = nil) throws -> String {
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: try #require(keyFile["private_key"]?.stringValue))
        let head = header ?? .object([("typ", .string("JWT")), ("alg", .string("RS256")), ("kid", keyFile["private_key_id"] ?? .null)])
        let body = JSONValue.object(claims ?? self.claims(keyFile))
        let signed = b64(Array(head.encoded().utf8)) + "." + b64(Array(body.encoded().utf8))
        let signature = try key.signature(for: Array(signed.utf8), padding: .insecurePKCS1v1_5)
        return signed + "." + b64(Array(signature.rawRepresentation))
    }

    /// google-auth's claims for this key file, with `aud` replaceable.
    static func claims(_ keyFile: JSONValue, audience: String = "https://oauth2.googleapis.com/token") -> [(String, JSONValue)] {
        let now = Int64(Date().timeIntervalSince1970)
        return [
            ("iat", .int(now)), ("exp", .int(now + 3600)), ("iss", keyFile["client_email"] ?? .null),
            ("aud", .string(audience)), ("scope", .string(scope)),
        ]
    }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func exchange(_ api: InProcess, _ assertion: String, grantType: String = jwtBearer) -> HTTPResponse {
        api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "127.0.0.1:9092")],
                body: "grant_type=\(grantType)&assertion=\(assertion)"
            ))
    }

    /// An access token for the key file's project, or a test failure.
    static func accessToken(_ api: InProcess, _ keyFile: JSONValue) throws -> String {
        let body = try JSONParser.parse(exchange(api, try assertion(keyFile)).body)
        return try #require(body["access_token"]?.stringValue)
    }
}
