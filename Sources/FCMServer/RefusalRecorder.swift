// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport

/// The one place where an FCM front's refusals become `refused` events: every
/// answer of the v1, batch, legacy, device-group and IID routes passes here. Fronts note what they
/// refuse inside a success (legacy per-result errors, IID per-token errors); any error status a
/// front did not note is read from the answer itself, so a new validation rule, quota or fault is
/// recorded without its author doing anything.
struct RefusalRecorder: Sendable {
    let emulator: Emulator

    /// Completes the answer's refusals (API, project, a note for an unnoted error status) and
    /// records them; the transport's access log then says why. `api`: the request's, from the
    /// router's mounts.
    func record(_ response: inout HTTPResponse, for request: HTTPRequest, api: API) {
        guard let name = api.refusalName, response.outcome.writesAnswer else {
            response.refusals = []
            return
        }
        if response.refusals.isEmpty, response.status >= 400 { response.refusals = [Self.read(response)] }
        guard !response.refusals.isEmpty else { return }
        let project = project(of: request)
        // A refusal the front noted no target for (credentials refused before the body was read,
        // the access policy, an injected status) takes the one the body names, read at most once.
        let named = response.refusals.contains { $0.target == nil } ? RefusalTarget.read(request.body) : nil
        for i in response.refusals.indices {
            // Batch parts keep `batch`, which the batch front set; everything else is its path's.
            if response.refusals[i].api != "batch" { response.refusals[i].api = name }
            if response.refusals[i].project == nil { response.refusals[i].project = project }
            if response.refusals[i].target == nil { response.refusals[i].target = named }
        }
        emulator.recordRefusals(response.refusals)
    }

    /// The project a request names: the v1 path's, the `project_id` header (device groups, IID),
    /// or the sender of the legacy server key.
    func project(of request: HTTPRequest) -> String? {
        if let project = AccessLog.project(request.path) { return String(project) }
        if let header = request.header("project_id") { return header }
        return Authenticator.serverKey(request).flatMap { emulator.project(serverKey: $0)?.id }
    }

    /// An error answer no front noted, read as the client reads it: v1's `{"error": {…}}`, IID's and
    /// device groups' `{"error": "…"}`, legacy plain text, or an HTML page's text.
    static func read(_ response: HTTPResponse) -> Refusal {
        let phrase = HTTPResponse.reasonPhrase(response.status)
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        if contentType.contains("json"), let json = try? JSONParser.parse(response.body), let error = json["error"] {
            if let text = error.stringValue {
                return Refusal(
                    api: "", status: response.status, code: text, detail: json["error_description"]?.stringValue ?? text)
            }
            let code =
                error["details"]?.arrayValue?.lazy.compactMap { $0["errorCode"]?.stringValue }.first ?? error["status"]?.stringValue
            return Refusal(api: "", status: response.status, code: code ?? phrase, detail: error["message"]?.stringValue ?? phrase)
        }
        var text = Refusal.truncated(response.bodyText, maxBytes: 4096)
        if contentType.contains("html") { text = plainText(html: text) }
        text = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return Refusal(api: "", status: response.status, code: phrase, detail: text.isEmpty ? phrase : text)
    }

    /// The visible text of a small HTML page: tags dropped (the `<title>` too, which repeats the
    /// heading), the few entities the pages use decoded.
    static func plainText(html: String) -> String {
        var out = ""
        var inTag = false
        var tag = ""
        var inTitle = false
        for character in html {
            if inTag {
                if character == ">" {
                    inTag = false
                    let name = tag.lowercased()
                    if name.hasPrefix("title") { inTitle = true } else if name.hasPrefix("/title") { inTitle = false }
                    out.append(" ")
                } else {
                    tag.append(character)
                }
            } else if character == "<" {
                inTag = true
                tag = ""
            } else if !inTitle {
                out.append(character)
            }
        }
        return out.replacingAll("&quot;", "\"").replacingAll("&lt;", "<").replacingAll("&gt;", ">").replacingAll("&amp;", "&")
    }
}

extension API {
    /// The API a `refused` event names (device groups are legacy's); nil for those whose answers
    /// are not an FCM front's refusals (the control API, the dashboard, OAuth and the rest).
    var refusalName: String? {
        switch self {
        case .v1, .v1Topics: "v1"
        case .batch: "batch"
        case .legacy, .groups: "legacy"
        case .iid: "iid"
        // The receiver side (docs/receivers.md): Web Push publishers, and receivers registering.
        case .webpush: "webpush"
        case .installations: "installations"
        case .registrations: "registrations"
        case .checkin: "checkin"
        default: nil  // OAuth, metadata, the emulator's own APIs
        }
    }
}
