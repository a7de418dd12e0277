// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport

/// The emulator-only API under `/emulator/v1`: create and drive projects and devices, read what
/// devices received and what happened, move the clock. Documented in the README and served as
/// OpenAPI at `/emulator/v1/openapi.json`.
public struct ControlAPI: Sendable {
    public static let prefix = "/emulator/v1"
    /// The health check, which stays open where the rest needs the control token: container
    /// health checks carry none (`AccessPolicy.Plane.control`).
    public static let healthPath = prefix + "/health"

    let emulator: Emulator
    let accounts: ServiceAccounts
    let grants: AccessGrants
    /// Streams and waits kept open, and their limits.
    let live: LiveRequests
    /// What the event streams share.
    let feed: EventFeed
    /// The running server's addresses and credentials, for `GET /info` (the ready-file JSON).
    let info: @Sendable () -> JSONValue
    let snapshots: SnapshotRoutes
    /// Who holds connections to the HTTP ports; nil in process.
    let clients: ClientConnections?

    package init(
        emulator: Emulator, credentials: FrontCredentials, live: LiveRequests, feed: EventFeed,
        info: @escaping @Sendable () -> JSONValue, snapshots: SnapshotConfiguration, clients: ClientConnections? = nil
    ) {
        self.clients = clients
        self.emulator = emulator
        self.accounts = credentials.accounts
        self.grants = credentials.grants
        self.live = live
        self.feed = feed
        self.info = info
        self.snapshots = SnapshotRoutes(emulator: emulator, credentials: credentials, configuration: snapshots)
    }

    public func register(into router: inout Router) {
        router.mount(.control, ["/emulator", "/emulator/*"], dialect: Self.dialect)
        let p = Self.prefix
        // The one path the access policy leaves open to any caller.
        router.add("GET", Self.healthPath) { _, _ in ControlJSON.response(.object([("status", .string("ok"))])) }
        router.add("GET", "\(p)/info") { _, _ in ControlJSON.response(info()) }
        router.add("GET", "\(p)/openapi.json") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=UTF-8")], body: OpenAPIDocument.bytes)
        }
        router.add(
            "POST", "\(p)/reset",
            handle { _, _ throws(FCMError) in
                try emulator.reset()
                return ControlJSON.response(.object([]))
            })
        router.add("POST", "\(p):export", handle { request, _ throws(FCMError) in try snapshots.export(request) })
        router.add("POST", "\(p):import", handle { request, _ throws(FCMError) in try snapshots.import(request) })
        registerClock(into: &router)
        registerMetrics(into: &router)
        registerConnections(into: &router)
        registerFaults(into: &router)
        registerProjects(into: &router)
        registerDevices(into: &router)
        registerTray(into: &router)
        registerOutcomes(into: &router)
        registerInspection(into: &router)
        registerStreams(into: &router)
        registerCertificate(into: &router)
    }

    /// Wraps a throwing handler so that core errors become control-API errors.
    func handle(_ body: @escaping @Sendable (HTTPRequest, PathParameters) throws(FCMError) -> HTTPResponse) -> RouteHandler {
        { request, parameters in
            do throws(FCMError) {
                return try body(request, parameters)
            } catch {
                return ControlError.response(error)
            }
        }
    }

    /// Answers paths under the prefix that match no route.
    public static func fallback(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        guard allowed.isEmpty else {
            var response = ControlError.response(
                status: 405, name: "INVALID_ARGUMENT",
                message: "\(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: ", "))"
            )
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        }
        return ControlError.response(
            status: 404, name: "NOT_FOUND", message: "No control API route \(request.method) \(request.path); see \(prefix)/openapi.json")
    }

    /// A body over the limit.
    public static func tooLarge(limit: Int) -> HTTPResponse {
        ControlError.response(status: 413, name: "INVALID_ARGUMENT", message: "The request body is larger than \(limit) bytes")
    }

    /// The control API's own error JSON for everything; fault rules never reach it.
    public static let dialect = Dialect(
        notFound: fallback, tooLarge: { tooLarge(limit: $0) },
        refused: { ControlError.response(status: $0.status, name: $0.statusName, message: $0.message) })

    // MARK: - Clock

    private func registerClock(into router: inout Router) {
        let p = Self.prefix
        router.add("GET", "\(p)/clock") { _, _ in ControlJSON.response(ControlJSON.clock(emulator.clockStatus)) }
        router.add(
            "POST", "\(p)/clock:advance",
            handle { request, _ throws(FCMError) in
                let body = try ControlBody(request, allowed: ["by", "to"])
                if let by = try body.durationMillis("by") {
                    guard try body.string("to") == nil else { throw FCMError(.invalidArgument, "Give 'by' or 'to', not both") }
                    try emulator.advance(byMillis: by)
                } else if let to = try body.string("to") {
                    guard let instant = Instant(iso8601: to) else {
                        throw FCMError(.invalidArgument, "Field 'to' must be an RFC 3339 time such as 2026-01-01T10:00:00Z", field: "to")
                    }
                    try emulator.advance(to: instant)
                } else {
                    throw FCMError(.invalidArgument, "Give 'by' (\"90s\", \"15m\", milliseconds) or 'to' (an RFC 3339 time)")
                }
                return ControlJSON.response(ControlJSON.clock(emulator.clockStatus))
            })
        router.add("POST", "\(p)/clock:pause") { _, _ in
            emulator.pauseClock()
            return ControlJSON.response(ControlJSON.clock(emulator.clockStatus))
        }
        router.add("POST", "\(p)/clock:resume") { _, _ in
            emulator.resumeClock()
            return ControlJSON.response(ControlJSON.clock(emulator.clockStatus))
        }
        router.add(
            "POST", "\(p)/clock:setSpeed",
            handle { request, _ throws(FCMError) in
                let body = try ControlBody(request, allowed: ["speed"])
                guard let speed = try body.number("speed") else {
                    throw FCMError(.invalidArgument, "Field 'speed' is required", field: "speed")
                }
                try emulator.setClockSpeed(speed)
                return ControlJSON.response(ControlJSON.clock(emulator.clockStatus))
            })
    }

    static func json(_ request: HTTPRequest) throws(FCMError) -> JSONValue {
        do {
            return try JSONParser.parse(request.body)
        } catch {
            throw FCMError(.invalidArgument, "Malformed JSON: \(error)")
        }
    }

    /// `GET …/events?device=&token=&topic=&message=&kind=a,b&since=&until=&limit=&before=`, and
    /// `waitFor=N&timeout=` to answer once N events match (ControlAPI+Live.swift).
    func events(_ request: HTTPRequest, projectId: String?, device: DeviceID?) throws(FCMError) -> HTTPResponse {
        let query = try eventQuery(
            request, projectId: projectId, device: device, extra: ["since", "until", "limit", "before"] + Self.waitParameters)
        let before = try Self.sequence(request.queryValue("before"), field: "before")
        let emulator = emulator
        let answer = { @Sendable (events: [Event]) in Self.eventList(events, limit: query.limit, log: emulator.eventLogState) }
        guard let wait = try waitRequest(request, limit: query.limit) else { return answer(try emulator.events(query, before: before)) }
        guard before == nil else {
            throw FCMError(.invalidArgument, "before reads the past; waitFor waits for what is new: use one", field: "before")
        }
        return try waitingForEvents(wait, query: query, answer: answer)
    }

    /// The filters shared by the events list and the event stream.
    func eventQuery(_ request: HTTPRequest, projectId: String?, device: DeviceID?, extra: [String]) throws(FCMError) -> EventQuery {
        let known = Set(["device", "token", "topic", "message", "kind"] + extra)
        for (key, _) in request.query where !known.contains(key) {
            throw FCMError(
                .invalidArgument, "Unknown query parameter '\(key)'; expected one of: \(known.sorted().joined(separator: ", "))", field: key
            )
        }
        var query = EventQuery(projectId: projectId, deviceId: device)
        if let reference = request.queryValue("device") {
            guard let projectId else {
                throw FCMError(.invalidArgument, "Filter by device under /projects/{project}/events", field: "device")
            }
            query.deviceId = try emulator.device(reference, projectId: projectId).id
        }
        query.token = request.queryValue("token")
        query.topic = request.queryValue("topic")
        query.messageId = request.queryValue("message")
        if let kinds = request.queryValue("kind") {
            var set = Set<Event.Kind>()
            for name in kinds.split(separator: ",") {
                guard let kind = Event.Kind(rawValue: String(name)) else {
                    throw FCMError(
                        .invalidArgument,
                        "Unknown event kind '\(name)'; expected: \(Event.Kind.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: "kind")
                }
                set.insert(kind)
            }
            query.kinds = set
        }
        query.since = try instant(request.queryValue("since"), field: "since")
        query.until = try instant(request.queryValue("until"), field: "until")
        if let limit = request.queryValue("limit") {
            guard let n = Int(limit), (1...100_000).contains(n) else {
                throw FCMError(.invalidArgument, "limit must be 1–100000", field: "limit")
            }
            query.limit = n
        }
        return query
    }

    private func instant(_ text: String?, field: String) throws(FCMError) -> Instant? {
        guard let text else { return nil }
        if let millis = Int64(text) { return Instant(millis: millis) }
        guard let instant = Instant(iso8601: text) else {
            throw FCMError(.invalidArgument, "\(field) must be an RFC 3339 time or epoch milliseconds", field: field)
        }
        return instant
    }
}
