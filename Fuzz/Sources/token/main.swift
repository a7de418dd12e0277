// SPDX-License-Identifier: Apache-2.0

// The OAuth 2 token endpoint, POST /token, two ways:
// - an input starting with `{` is a JWT claim set (up to the first newline; what follows, if
//   anything, is the JOSE header, else a correct RS256 header with the key's `kid`): the harness
//   signs it with the strict project's service-account key, so the fuzzer gets past the signature
//   to the claim checks (iat, exp, scope, aud), and when a token is issued it sends with it;
// - any other input is the url-encoded form body itself (grant_type, assertion).
// The fronts' wall clock is fixed at HTTPHarness.wallSeconds (1800000000), so seeds keep working.

import Crypto
import FCMCore
import FCMHTTP
import FCMJSON
import Foundation
import FuzzSupport
import _CryptoExtras

let harness = HTTPHarness.shared
let formHeaders = [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "127.0.0.1:9092")]
let grantType = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// The strict project's signing key and its id, loaded once from the key file.
let signer: (keyId: String, key: _RSA.Signing.PrivateKey) = {
    let file = harness.strictKeyFile
    guard let keyId = file["private_key_id"]?.stringValue, let pem = file["private_key"]?.stringValue,
        let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
    else { Fuzz.fail("the strict project's key file has no usable private key") }
    return (keyId, key)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let bytes = Fuzz.bytes(start, count)
    guard bytes.first == UInt8(ascii: "{") else {
        harness.call("POST", "/token", headers: formHeaders, body: bytes)
        return 0
    }
    let (claims, header) = Fuzz.split(bytes, at: 0x0A) ?? (bytes, [])
    let (keyId, key) = signer
    let head = header.isEmpty ? Array(JSONValue.object([("alg", .string("RS256")), ("typ", .string("JWT")), ("kid", .string(keyId))]).encoded().utf8) : header
    let signed = base64URL(head) + "." + base64URL(claims)
    guard let signature = try? key.signature(for: Array(signed.utf8), padding: .insecurePKCS1v1_5) else {
        Fuzz.fail("signing failed")
    }
    let body = "grant_type=\(grantType)&assertion=\(signed).\(base64URL(signature.rawRepresentation))"
    let response = harness.call("POST", "/token", headers: formHeaders, body: Array(body.utf8))
    Fuzz.check(response.status == 200 || response.status == 400, "token endpoint answered \(response.status)")
    guard response.status == 200 else { return 0 }
    guard let token = (try? JSONParser.parse(response.body))?["access_token"]?.stringValue else {
        Fuzz.fail("a 200 from the token endpoint without access_token: \(response.bodyText)")
    }
    // The issued token opens its own project's send (the fixture devices are in the demo project,
    // so the strict project answers about the token, not the device).
    let send = #"{"message":{"topic":"news","data":{"k":"v"}}}"#
    let sent = harness.call(
        "POST", "/v1/projects/\(HTTPHarness.strictProject)/messages:send",
        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array(send.utf8)
    )
    Fuzz.check(sent.status == 200 || sent.status == 403, "a send with an issued token answered \(sent.status): \(sent.bodyText)")
    return 0
}
