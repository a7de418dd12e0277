// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The dashboard at `/ui/`: the files of `Dashboard/ui/`, compiled into the binary by SwiftPM
/// (`.embedInCode` in Package.swift), which read and drive the world through the control API and
/// its event stream like any other client.
package struct Dashboard: Sendable {
    package static let prefix = "/ui"
    /// Set by dashboard developers to the `ui/` directory: files are then read from it on every
    /// request, so an edit shows on reload without a rebuild.
    static let developmentDirectoryVariable = "FCM_EMU_UI_DIR"

    private let developmentDirectory: String?

    package init(developmentDirectory: String? = ProcessInfo.processInfo.environment[Self.developmentDirectoryVariable]) {
        self.developmentDirectory = developmentDirectory.flatMap { $0.isEmpty ? nil : $0 }
    }

    package func register(into router: inout Router) {
        router.mount(.dashboard, [Self.prefix, Self.prefix + "/*"], dialect: GoogleFrontEnd.dialect)
        // The router reads `/ui` and `/ui/` alike; relative links in the page need the slash.
        router.add("GET", Self.prefix) { request, _ in
            guard request.path.hasSuffix("/") else { return HTTPResponse(status: 308, headers: [("Location", Self.prefix + "/")]) }
            return file("index.html", request: request)
        }
        router.add("GET", Self.prefix + "/{file}") { request, params in file(params["file"] ?? "", request: request) }
    }

    private func file(_ name: String, request: HTTPRequest) -> HTTPResponse {
        guard Self.isPlainName(name), let bytes = contents(name) else { return GoogleFrontEnd.notFound(request) }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", Self.contentType(name)),
                ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
                // Only this origin's scripts, styles and API: the page shows peer-chosen payloads.
                (
                    "Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
                ),
                ("Referrer-Policy", "no-referrer"),
            ],
            body: bytes)
    }

    /// The dashboard's files by name, as the build embedded them (Package.swift lists the same names).
    static let files: [String: [UInt8]] = [
        "activity.js": PackageResources.activity_js, "api.js": PackageResources.api_js, "app.js": PackageResources.app_js,
        "connections.js": PackageResources.connections_js,
        "dom.js": PackageResources.dom_js, "eviction.js": PackageResources.eviction_js, "examples.js": PackageResources.examples_js,
        "feed.js": PackageResources.feed_js, "icon.svg": PackageResources.icon_svg, "inbox.js": PackageResources.inbox_js,
        "index.html": PackageResources.index_html, "links.js": PackageResources.links_js, "logview.js": PackageResources.logview_js,
        "outcomes.js": PackageResources.outcomes_js,
        "refusals.js": PackageResources.refusals_js, "style.css": PackageResources.style_css,
        "timeline.js": PackageResources.timeline_js,
    ]

    private func contents(_ name: String) -> [UInt8]? {
        guard let directory = developmentDirectory else { return Self.files[name] }
        return FileManager.default.contents(atPath: directory + "/" + name).map { Array($0) }
    }

    /// A flat file name: no path, no dot files (the directory is flat).
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "json": return "application/json; charset=utf-8"
        default: return "text/plain; charset=utf-8"
        }
    }
}
