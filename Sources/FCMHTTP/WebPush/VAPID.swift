// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Voluntary Application Server Identification (RFC 8292): the publisher's signed claim and the
/// key it signed with, checked as FCM's push service checks it (docs/receivers.md, "VAPID").
enum VAPID {
    /// The audience FCM's push service takes: its own origin (RFC 8292 §2).
    static let audience = "https://fcm.googleapis.com"
    /// "An application server MUST NOT send a JWT with an expiration more than 24 hours from the
    /// time of the request" (RFC 8292 §2).
    static let maxLifetimeSeconds: Int64 = 24 * 3600

    enum Refusal: Error, Equatable {
        /// No VAPID at all: 401 (RFC 8292 §4.2).
        case missing
        /// VAPID that does not verify: 403 (RFC 8292 §4.2), with the reason.
        case invalid(String)
        /// A valid token from another key than the subscription's: 403 (RFC 8292 §4.2).
        case wrongKey
    }

    /// The token and key of `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3), or of the
    /// older `Authorization: WebPush <JWT>` with `Crypto-Key: p256ecdsa=<key>`
    /// (draft-ietf-webpush-vapid-01 §4, which publishers still send with `aesgcm`).
    static func credentials(_ request: HTTPRequestView) throws(Refusal) -> (token: String, key: [UInt8]) {
        guard let header = request.authorization?.trimming(), !header.isEmpty else { throw .missing }
        let scheme = header.prefix { $0 != " " }.lowercased()
        let rest = header.dropFirst(scheme.count).trimming()
        var token: String?
        var key: String?
        switch scheme {
        case "vapid":
            for part in rest.split(separator: ",") {
                let pair = part.trimming()
                if pair.hasPrefix("t=") { token = String(pair.dropFirst(2)) }
                if pair.hasPrefix("k=") { key = String(pair.dropFirst(2)) }
            }
        case "webpush":
            token = rest
            key = request.cryptoKeyParameter("p256ecdsa")
        default:
            throw .invalid("The Authorization scheme must be vapid (RFC 8292 §3)")
        }
        guard let token, !token.isEmpty else { throw .invalid("The vapid Authorization has no t= token") }
        guard let key, let bytes = Base64URLCodec.decode(key, maxBytes: 256), bytes.count == 65, bytes.first == 4 else {
            throw .invalid("The vapid k= key must be a P-256 public key, uncompressed and base64url (RFC 8292 §3.2)")
        }
        return (token, bytes)
    }

    /// Checks an ES256 token against `key` at `nowSeconds` (wall clock), RFC 8292 §2 and §3.
    static func verify(token: String, key: [UInt8], nowSeconds: Int64) throws(Refusal) {
        guard let jwt = JWT(token) else { throw .invalid("The vapid t= token is not a JWT") }
        guard jwt.header.objectValue?.first(where: { $0.0 == "alg" })?.1.stringValue == "ES256" else {
            throw .invalid("The JWT must be signed with ES256 (RFC 8292 §2)")
        }
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            publicKey.isValidSignature(signature, for: Data(jwt.signedPart))
        else { throw .invalid("The JWT's signature does not verify with the k= key") }
        let claims = jwt.claims.objectValue ?? []
        func claim(_ name: String) -> JSONValue? { claims.first { $0.0 == name }?.1 }
        guard claim("aud")?.stringValue == audience else {
            throw .invalid("The JWT's aud must be \(audience), the push service's origin (RFC 8292 §2)")
        }
        guard let exp = claim("exp")?.int64Value else { throw .invalid("The JWT has no exp claim (RFC 8292 §2)") }
        guard exp > nowSeconds else { throw .invalid("The JWT has expired") }
        guard exp <= nowSeconds + maxLifetimeSeconds else {
            throw .invalid("The JWT's exp is more than 24 hours ahead (RFC 8292 §2)")
        }
    }
}

/// The request headers VAPID and `aesgcm` read.
struct HTTPRequestView {
    let authorization: String?
    let cryptoKey: String?

    /// A parameter of `Crypto-Key`, whose entries are comma-separated and their parameters
    /// semicolon-separated (draft-ietf-httpbis-encryption-encoding-03 §4).
    func cryptoKeyParameter(_ name: String) -> String? {
        for entry in (cryptoKey ?? "").split(separator: ",") {
            for parameter in entry.split(separator: ";") {
                let pair = parameter.trimming()
                if pair.lowercased().hasPrefix(name + "=") {
                    return String(pair.dropFirst(name.count + 1)).trimming { $0 == "\"" }
                }
            }
        }
        return nil
    }
}
