// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// The HTML pages Google's front end answers with when no API's own format does: an unknown URL,
/// a refused request, an injected status or 502. The dialect of the paths no JSON API owns
/// (metadata, the dashboard's files, unknown paths).
package enum GoogleFrontEnd {
    package static let dialect = Dialect(notFound: { request, _ in notFound(request) }, tooLarge: { _ in tooLarge() }, refused: refused)

    package static func notFound(_ request: HTTPRequest) -> HTTPResponse {
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

    /// Google's front end says no more than this of a body over its limit (the access log names
    /// the limit).
    static func tooLarge() -> HTTPResponse {
        let html = """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <title>Error 413 (Request Entity Too Large)!!1</title>
              <p><b>413.</b> <ins>That’s an error.</ins>
              <p>Your client issued a request that was too large.  <ins>That’s all we know.</ins>

            """
        return HTTPResponse(status: 413, contentType: "text/html; charset=UTF-8", body: html)
    }

    static func refused(_ refusal: AccessPolicy.Refusal) -> HTTPResponse {
        let title = "Error \(refusal.status) (\(HTTPResponse.reasonPhrase(refusal.status)))!!1"
        let html = """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <title>\(title)</title>
              <p><b>\(refusal.status).</b> <ins>That’s an error.</ins>
              <p>\(escapeHTML(refusal.message))  <ins>That’s all we know.</ins>

            """
        return HTTPResponse(status: refusal.status, contentType: "text/html; charset=UTF-8", body: html)
    }

    package static func page(_ status: Int, _ title: String, _ body: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "text/html; charset=UTF-8",
            body: "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>\(title)</title>\n  \(body)\n")
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }
}
