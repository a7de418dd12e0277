// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// The media types the control API reads (docs/security.md, "Content types").
///
/// A page may send `text/plain`, `application/x-www-form-urlencoded` and `multipart/form-data`
/// bodies, or none at all (a `Blob` without a type), to any origin without a CORS preflight (Fetch
/// standard, "CORS-safelisted request-header" and "simple" requests). A JSON body that needs
/// `application/json`, which a page can only send after a preflight the emulator never grants,
/// cannot be planted by one; so every control-API body must say it is JSON, and a snapshot tar
/// must say `application/x-tar` (`?format=tar` alone no longer makes a body an import).
package enum ControlContentType {
    static let json = "application/json"
    static let tar = "application/x-tar"

    /// The media type without parameters (RFC 9110 §8.3.1), lower-cased.
    static func mediaType(_ request: HTTPRequest) -> String? {
        guard let value = request.header("Content-Type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return type.trimmingSpaces.lowercased()
    }

    /// Whether the request is `POST /emulator/v1:import`, however its path is encoded.
    static func isImport(_ request: HTTPRequest) -> Bool {
        let segments = Router.split(request.path)
        guard segments.count == 2, segments[0] == "emulator" else { return false }
        let last = segments[1].contains("%") ? HTTPRequest.percentDecode(segments[1]) : segments[1]
        return last == "v1:import"
    }

    /// nil when the request's body (if any) is declared as the route reads it; else a 415.
    package static func refusal(_ request: HTTPRequest) -> HTTPResponse? {
        let type = mediaType(request)
        if isImport(request) {
            if type == tar { return nil }
            if request.queryValue("format") == "tar" {
                return unsupported("A snapshot tar is imported with 'Content-Type: \(tar)', got \(shown(type))")
            }
        }
        guard !request.body.isEmpty, type != json else { return nil }
        return unsupported("A control API body is JSON sent with 'Content-Type: \(json)', got \(shown(type))")
    }

    private static func shown(_ type: String?) -> String {
        type.map { "'\(String($0.prefix(80)))'" } ?? "none"
    }

    private static func unsupported(_ message: String) -> HTTPResponse {
        ControlError.response(status: 415, name: "INVALID_ARGUMENT", message: message)
    }
}
