// SPDX-License-Identifier: Apache-2.0

/// The control API as OpenAPI 3.0, served at `/emulator/v1/openapi.json`. The document is
/// `Resources/openapi.json`, kept by hand beside the route table (ControlAPITests checks that
/// every route the router serves is listed there and that it parses), and compiled into the
/// binary by SwiftPM (`.embedInCode` in Package.swift), so a binary copied alone still serves it.
enum OpenAPIDocument {
    static var bytes: [UInt8] { PackageResources.openapi_json }
}
