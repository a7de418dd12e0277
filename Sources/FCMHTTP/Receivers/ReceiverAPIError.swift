// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Errors of Google's JSON registration APIs (Firebase Installations, FCM registrations) in
/// their `google.rpc.Status` envelope (https://cloud.google.com/apis/design/errors), the one the
/// Firebase JS SDK parses (packages/installations/src/functions/common.ts).
enum ReceiverAPIError {
    /// Google's API-key check, which answers before the API does. A key is an API key's shape,
    /// `AIza` and 35 characters of base64url (https://cloud.google.com/docs/authentication/api-keys);
    /// the emulator keeps no list of them, so any key of that shape is a project's.
    static func checkAPIKey(_ request: HTTPRequest, service: String) -> HTTPResponse? {
        guard let key = request.header("x-goog-api-key") ?? queryKey(request) else {
            return V1Error(
                status: 403, statusName: "PERMISSION_DENIED",
                message: "Method doesn't allow unregistered callers (callers without established identity). "
                    + "Please use API Key or other form of API consumer identity to call this API.",
                details: []
            ).response
        }
        let bytes = Array(key.utf8)
        let shaped = bytes.count == 39 && bytes.starts(with: Array("AIza".utf8)) && bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
        guard shaped else {
            return V1Error(
                status: 400, statusName: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.",
                details: [.errorInfo(reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: [("service", service)])]
            ).response
        }
        return nil
    }

    private static func queryKey(_ request: HTTPRequest) -> String? { request.query.first { $0.0 == "key" }?.1 }

    static func response(_ refusal: ReceiverRefusal) -> HTTPResponse {
        switch refusal {
        case .unauthenticated(let message):
            V1Error(status: 401, statusName: "UNAUTHENTICATED", message: message, details: []).response
        case .invalid(let message, let field):
            V1Error(
                status: 400, statusName: "INVALID_ARGUMENT", message: message,
                details: field.map { [.badRequest(field: $0, description: message)] } ?? []
            ).response
        case .notFound(let message):
            V1Error(status: 404, statusName: "NOT_FOUND", message: message, details: []).response
        case .exhausted(let message):
            V1Error(status: 429, statusName: "RESOURCE_EXHAUSTED", message: message, details: []).response
        }
    }

    static func badJSON(_ what: String) -> HTTPResponse {
        V1Error(status: 400, statusName: "INVALID_ARGUMENT", message: "Invalid JSON payload received. \(what)", details: []).response
    }

    /// The request's JSON object, whatever its `Content-Type` says: firebase-messaging sends its
    /// JSON labelled `text/plain; charset=utf-8` (aiohttp's label for a `str` body).
    static func object(_ request: HTTPRequest) -> Result<JSONValue, ReceiverRefusal> {
        guard let value = try? JSONParser.parse(request.body), value.objectValue != nil else {
            return .failure(.invalid("Invalid JSON payload received. The body must be a JSON object.", field: nil))
        }
        return .success(value)
    }
}
