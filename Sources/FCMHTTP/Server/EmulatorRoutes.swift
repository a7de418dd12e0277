// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// The one route table of the HTTP port. Tests and the scenario runner call `responder` in
/// process; the transport calls the very same value for network clients.
public enum EmulatorRoutes {
    public static func responder(emulator: Emulator, maxBodyBytes: Int, info: @escaping @Sendable () -> JSONValue) -> HTTPResponder {
        var router = Router(fallback: fallback)
        ControlAPI(emulator: emulator, info: info).register(into: &router)
        V1Front(emulator: emulator).register(into: &router)
        return HTTPResponder(router: router, maxBodyBytes: maxBodyBytes) { request in
            if request.path.hasPrefix("/v1/") {
                return V1Error(status: 413, statusName: "INVALID_ARGUMENT", message: "Request payload size exceeds the limit: \(maxBodyBytes) bytes.", details: []).response
            }
            return ControlAPI.tooLarge(request, limit: maxBodyBytes)
        }
    }

    /// Unknown paths: the control API's dialect under its prefix, Google's 404 page elsewhere.
    @Sendable static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        if request.path.hasPrefix(ControlAPI.prefix) || request.path == "/" {
            return ControlAPI.fallback(request, allowed: allowed)
        }
        if request.path.hasPrefix("/v1/") { return V1Front.fallback(request, allowed: allowed) }
        // Google's front end answers unknown URLs with an HTML 404 page.
        let html = """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <title>Error 404 (Not Found)!!1</title>
              <p><b>404.</b> <ins>That’s an error.</ins>
              <p>The requested URL <code>\(escapeHTML(request.path))</code> was not found on this server.  <ins>That’s all we know.</ins>

            """
        return HTTPResponse(status: 404, contentType: "text/html; charset=UTF-8", body: html)
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
