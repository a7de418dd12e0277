// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import Testing

/// Calls the emulator's routes in process: the same responder the transport uses.
struct InProcess {
    let emulator: Emulator
    let responder: HTTPResponder

    init(_ emulator: Emulator = Emulator(), fronts: FrontConfiguration = FrontConfiguration()) {
        self.emulator = emulator
        responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: 1 << 20, fronts: fronts) { .object([("test", .bool(true))]) }
    }

    /// Calls a route; the demo project is lax, so any bearer will do unless one is given.
    func call(
        _ method: String, _ path: String, _ body: String = "", headers: [(String, String)] = [("Authorization", "Bearer owner")]
    ) -> HTTPResponse {
        responder.respond(
            HTTPRequest(
                method: method, target: path, headers: [("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")] + headers,
                body: body))
    }

    /// Calls and parses the JSON answer, failing the test when it is not JSON.
    func json(
        _ method: String, _ path: String, _ body: String = "", status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let response = call(method, path, body)
        #expect(response.status == status, "\(method) \(path): \(response.bodyText)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/json; charset=UTF-8", sourceLocation: sourceLocation)
        return try JSONParser.parse(response.body)
    }
}

extension JSONValue {
    /// Follows a dotted path of keys and array indexes: `devices.0.token`.
    func at(_ path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".") {
            if let index = Int(part), let items = current?.arrayValue {
                current = index < items.count ? items[index] : nil
            } else {
                current = current?[String(part)]
            }
        }
        return current
    }

    func string(_ path: String) -> String? { at(path)?.stringValue }
}
