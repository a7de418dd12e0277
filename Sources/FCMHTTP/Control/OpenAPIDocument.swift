// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The control API as OpenAPI 3.0, served at `/emulator/v1/openapi.json`. The document is
/// `Resources/openapi.json`, kept by hand beside the route table (ControlAPITests checks that
/// every route the router serves is listed there and that it parses).
enum OpenAPIDocument {
    /// The document's text, or nil when the binary was installed without its resources.
    static let json: String? = candidates.lazy.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.first

    /// Beside the executable, where `swift build` and the Dockerfile put the resource bundle;
    /// else the source tree, for builds run from a checkout. No `Bundle.module`: its accessor
    /// traps when the bundle is missing, and a missing document must not take the server down.
    private static var candidates: [URL] {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        return [
            executable.appendingPathComponent("fcm-emu_FCMHTTP.resources/openapi.json"),
            Bundle.main.bundleURL.appendingPathComponent("fcm-emu_FCMHTTP.resources/openapi.json"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Resources/openapi.json"),
        ]
    }
}
