// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// The HTML pages the legacy endpoints answer with (the legacy HTTP reference, "Authentication" and 401,
/// https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/legacy.md).
enum LegacyPages {
    static let missingKey =
        "The request was missing an Authentication Key (FCM Token). Please, refer to section &quot;Authentication&quot;"
        + " of the FCM documentation, at https://firebase.google.com/docs/cloud-messaging/server."
    static let invalidKey = "Invalid (legacy) Server-key delivered or Sender is not authorized to perform request."

    static func unauthorized(_ text: String) -> HTTPResponse {
        page(status: 401, title: text, heading: text)
    }

    static func methodNotAllowed(_ method: String) -> HTTPResponse {
        let text = "HTTP method \(method) is not supported by this URL"
        return page(status: 405, title: "Error 405 (Method Not Allowed)", heading: text)
    }

    static func tooLarge() -> HTTPResponse {
        page(status: 413, title: "Request Entity Too Large", heading: "Request Entity Too Large")
    }

    private static func page(status: Int, title: String, heading: String) -> HTTPResponse {
        let body = """
            <HTML>
            <HEAD>
            <TITLE>\(title)</TITLE>
            </HEAD>
            <BODY BGCOLOR="#FFFFFF" TEXT="#000000">
            <H1>\(heading)</H1>
            <H2>Error \(status)</H2>
            </BODY>
            </HTML>

            """
        return HTTPResponse(status: status, contentType: "text/html; charset=UTF-8", body: body)
    }
}
