// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// The emulator as the MCP tools reach it: its control API and its v1 endpoint over HTTP, with
/// `ControlClient`, whether `fcm-emu mcp` started the emulator or attached to a `serve`, so both
/// modes take one path (docs/mcp.md).
struct EmulatorBackend: Sendable {
    static let control = "/emulator/v1"

    let client: ControlClient
    let tokens = BearerTokens()

    /// `method path` with an optional JSON body; a 2xx answer's JSON (an empty object for no
    /// body), anything else thrown with the emulator's own error text.
    func call(
        _ method: String, _ path: String, body: JSONValue? = nil, headers: [(String, String)] = []
    ) async throws(ToolFailure) -> JSONValue {
        let (status, json) = try await exchange(method, path, body: body, headers: headers, client: client)
        guard (200..<300).contains(status) else { throw Self.failure(status: status, json: json, method: method, path: path) }
        return json ?? .object([])
    }

    /// The same without a control token: the v1 endpoint reads `Authorization` as the OAuth
    /// bearer, and the control token would be a second one.
    func callAsApp(_ method: String, _ path: String, body: JSONValue, bearer: String) async throws(ToolFailure) -> (Int, JSONValue?) {
        var app = client
        app.controlToken = nil
        return try await exchange(method, path, body: body, headers: [("Authorization", "Bearer \(bearer)")], client: app)
    }

    private func exchange(
        _ method: String, _ path: String, body: JSONValue?, headers: [(String, String)], client: ControlClient
    ) async throws(ToolFailure) -> (Int, JSONValue?) {
        let answer: ControlClient.Answer
        do {
            answer = try await client.send(method, path, json: body.map { Array($0.encoded().utf8) }, headers: headers)
        } catch let failure as ControlClient.Failure {
            throw ToolFailure(failure.description)
        } catch {
            throw ToolFailure("cannot reach the emulator: \(error)")
        }
        if answer.body.isEmpty { return (answer.status, nil) }
        return (answer.status, try? JSONParser.parse(answer.body))
    }

    /// "404 NOT_FOUND: Device 'x' not found", from the control API's and FCM's error body
    /// (`{"error": {"code", "status", "message"}}`), or the status alone.
    static func failure(status: Int, json: JSONValue?, method: String, path: String) -> ToolFailure {
        let error = json?["error"]
        let name = error?["status"]?.stringValue.map { " \($0)" } ?? ""
        let message = error?["message"]?.stringValue ?? "no error message"
        return ToolFailure("the emulator answered \(status)\(name) to \(method) \(path): \(message)", body: json)
    }

    /// One path segment, percent-encoded: tokens hold ':' and names may hold anything; the
    /// router decodes segments (FCMTransport's `Router`).
    static func segment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// A query string from the pairs whose value is set.
    static func query(_ pairs: [(String, String?)]) -> String {
        let set = pairs.compactMap { pair in pair.1.map { "\(pair.0)=\(segment($0))" } }
        return set.isEmpty ? "" : "?" + set.joined(separator: "&")
    }

    static func projectPath(_ project: String) -> String { "\(control)/projects/\(segment(project))" }

    static func devicePath(_ project: String, _ device: String) -> String { "\(projectPath(project))/devices/\(segment(device))" }
}
