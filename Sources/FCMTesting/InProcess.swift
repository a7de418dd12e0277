// SPDX-License-Identifier: Apache-2.0

import FCMControl
import FCMCore
import FCMJSON
import FCMServer
import FCMTransport
import Testing

/// Calls the emulator's routes in process, without sockets: the same responder the transport
/// hands every request to (`EmulatorRoutes.responder`), so an answer here is the answer a client
/// gets, headers and all.
public struct InProcess: Sendable {
    public let emulator: Emulator
    public let responder: HTTPResponder
    /// What the control API's event streams share, for tests that count its work.
    public let events: EventFeed

    /// `info` is what `GET /emulator/v1/info` answers; a server fills it with its bound ports.
    public init(
        _ emulator: Emulator = Emulator(), fronts: FrontConfiguration = FrontConfiguration(),
        info: @escaping @Sendable () -> JSONValue = { .object([("test", .bool(true))]) }
    ) {
        self.emulator = emulator
        var fronts = fronts
        let events = fronts.events ?? EventFeed()
        fronts.events = events
        self.events = events
        responder = EmulatorRoutes.responder(emulator: emulator, maxBodyBytes: 1 << 20, fronts: fronts, info: info)
    }

    /// Calls a route; the demo project is lax, so any bearer will do unless one is given.
    public func call(
        _ method: String, _ path: String, _ body: String = "", headers: [(String, String)] = [("Authorization", "Bearer owner")]
    ) -> HTTPResponse {
        responder.respond(
            HTTPRequest(
                method: method, target: path, headers: [("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")] + headers,
                body: body))
    }

    /// Calls and parses the JSON answer, failing the test when the status is not `status` or
    /// the answer is not JSON.
    public func json(
        _ method: String, _ path: String, _ body: String = "", status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let response = call(method, path, body)
        #expect(response.status == status, "\(method) \(path): \(response.bodyText)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/json; charset=UTF-8", sourceLocation: sourceLocation)
        return try JSONParser.parse(response.body)
    }
}
