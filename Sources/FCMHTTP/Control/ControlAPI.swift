// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON

/// The emulator-only API under `/emulator/v1`: create and drive projects and devices, read what
/// devices received and what happened, move the clock. Documented in the README and served as
/// OpenAPI at `/emulator/v1/openapi.json`.
public struct ControlAPI: Sendable {
    public static let prefix = "/emulator/v1"

    let emulator: Emulator
    let accounts: ServiceAccounts
    let grants: AccessGrants
    /// Streams and waits kept open, and their limits.
    let live: LiveRequests
    /// The running server's addresses and credentials, for `GET /info` (the ready-file JSON).
    let info: @Sendable () -> JSONValue
    let snapshots: SnapshotRoutes

    init(
        emulator: Emulator, credentials: FrontCredentials, live: LiveRequests, info: @escaping @Sendable () -> JSONValue,
        snapshots: SnapshotConfiguration
    ) {
        self.emulator = emulator
        self.accounts = credentials.accounts
        self.grants = credentials.grants
        self.live = live
        self.info = info
        self.snapshots = SnapshotRoutes(emulator: emulator, credentials: credentials, configuration: snapshots)
    }

    public func register(into router: inout Router) {
        let p = Self.prefix
        router.add("GET", "\(p)/health") { _, _ in ControlJSON.response(.object([("status", .string("ok"))])) }
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
        registerFaults(into: &router)
        registerProjects(into: &router)
        registerDevices(into: &router)
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
    public static func tooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        ControlError.response(status: 413, name: "INVALID_ARGUMENT", message: "The request body is larger than \(limit) bytes")
    }

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

    // MARK: - Faults

    private func registerFaults(into router: inout Router) {
        let p = Self.prefix
        let list: @Sendable () -> HTTPResponse = {
            ControlJSON.response(.object([("faults", .array(emulator.faultRules().map(FaultRuleCodec.encode)))]))
        }
        router.add("GET", "\(p)/faults") { _, _ in list() }
        router.add(
            "POST", "\(p)/faults",
            handle { request, _ throws(FCMError) in
                let rule = try FaultRuleCodec.decode(try Self.json(request), defaultId: "rule-\(emulator.faultRules().count + 1)")
                try Self.checkFaultId(rule.id)
                emulator.addFaultRule(rule)
                return ControlJSON.response(status: 201, FaultRuleCodec.encode(rule))
            })
        router.add(
            "PUT", "\(p)/faults",
            handle { request, _ throws(FCMError) in
                guard let items = try Self.json(request)["faults"]?.arrayValue else {
                    throw FCMError(.invalidArgument, "The body is {\"faults\": [rules]}", field: "faults")
                }
                var rules: [FaultRule] = []
                for (i, item) in items.enumerated() {
                    let rule = try FaultRuleCodec.decode(item, defaultId: "rule-\(i + 1)")
                    try Self.checkFaultId(rule.id)
                    rules.append(rule)
                }
                emulator.setFaultRules(rules)
                return list()
            })
        router.add("DELETE", "\(p)/faults") { _, _ in
            emulator.setFaultRules([])
            return list()
        }
        router.add(
            "DELETE", "\(p)/faults/{id}",
            handle { _, params throws(FCMError) in
                try emulator.removeFaultRule(id: try params.require("id"))
                return list()
            })
    }

    /// A rule's id is a path segment (`DELETE …/faults/{id}`): empty, `.` and `..` cannot be one,
    /// since URL parsers drop or fold them (RFC 3986 §5.2.4; WHATWG URL "single-dot segment"),
    /// which made the dashboard's removal of rule `.` the removal of every rule (issue 23, item 5).
    static func checkFaultId(_ id: String) throws(FCMError) {
        guard isPathSegmentId(id) else {
            throw FCMError(.invalidArgument, "A fault rule id is 1–200 bytes, not '.' or '..', and has no '/'", field: "id")
        }
    }

    public static func isPathSegmentId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 200 && id != "." && id != ".." && !id.contains("/")
    }

    static func json(_ request: HTTPRequest) throws(FCMError) -> JSONValue {
        do {
            return try JSONParser.parse(request.body)
        } catch {
            throw FCMError(.invalidArgument, "Malformed JSON: \(error)")
        }
    }

    // MARK: - Projects

    private func registerProjects(into router: inout Router) {
        let p = Self.prefix
        router.add("GET", "\(p)/projects") { _, _ in
            ControlJSON.response(.object([("projects", .array(emulator.projects().map(ControlJSON.project)))]))
        }
        router.add(
            "POST", "\(p)/projects",
            handle { request, _ throws(FCMError) in
                let body = try ControlBody(request, allowed: ["id", "number", "serverKeys"])
                guard let id = try body.string("id") else { throw FCMError(.invalidArgument, "Field 'id' is required", field: "id") }
                let project = try emulator.createProject(
                    id: id, number: try body.string("number"), serverKeys: try body.strings("serverKeys") ?? [])
                return ControlJSON.response(status: 201, ControlJSON.project(project))
            })
        router.add(
            "GET", "\(p)/projects/{project}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(ControlJSON.project(try emulator.project(try params.require("project"))))
            })
        router.add(
            "DELETE", "\(p)/projects/{project}",
            handle { _, params throws(FCMError) in
                try emulator.deleteProject(id: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "POST", "\(p)/projects/{project}:reset",
            handle { _, params throws(FCMError) in
                try emulator.reset(projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/serviceAccount",
            handle { request, params throws(FCMError) in
                // A key file whose token_uri points back here, as the client reached us.
                let project = try emulator.project(try params.require("project"))
                let host = request.header("Host") ?? "127.0.0.1"
                do {
                    return ControlJSON.response(try accounts.keyFile(forProject: project.id, tokenURI: "http://\(host)/token"))
                } catch {
                    throw FCMError(.internalError, "Could not make a service-account key: \(error)")
                }
            })
        router.add(
            "POST", "\(p)/projects/{project}/accessTokens",
            handle { _, params throws(FCMError) in
                // What the token endpoint would grant the project's service account, without the
                // JWT dance: for the dashboard's send form and for harnesses that speak raw HTTP.
                let project = try emulator.project(try params.require("project"))
                let grant = grants.issue(projectId: project.id, scopes: Set(MetadataServer.scopes))
                return ControlJSON.response(
                    status: 201,
                    .object([
                        ("accessToken", .string(grant.token)), ("tokenType", .string("Bearer")),
                        ("expiresIn", .int(AccessGrants.lifetimeSeconds)),
                    ]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/xmpp",
            handle { _, params throws(FCMError) in
                let connections = try emulator.ccsConnections(projectId: try params.require("project"))
                return ControlJSON.response(.object([("connections", .array(connections.map(ControlJSON.connection)))]))
            })
        router.add(
            "POST", "\(p)/projects/{project}/xmpp:drain",
            handle { _, params throws(FCMError) in
                try emulator.requestDrain(projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/topics",
            handle { _, params throws(FCMError) in
                let topics = try emulator.topics(projectId: try params.require("project"))
                return ControlJSON.response(
                    .object([
                        ("topics", .array(topics.map { .object([("name", .string($0.name)), ("subscribers", .int($0.subscribers))]) }))
                    ]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/groups",
            handle { _, params throws(FCMError) in
                ControlJSON.response(
                    .object([("groups", .array(try emulator.groups(projectId: try params.require("project")).map(ControlJSON.group)))]))
            })
        router.add(
            "GET", "\(p)/events",
            handle { request, _ throws(FCMError) in
                try events(request, projectId: nil, device: nil)
            })
        router.add(
            "GET", "\(p)/projects/{project}/events",
            handle { request, params throws(FCMError) in
                try events(request, projectId: try params.require("project"), device: nil)
            })
    }

    /// `GET …/events?device=&token=&topic=&message=&kind=a,b&since=&until=&limit=`, and
    /// `waitFor=N&timeout=` to answer once N events match (ControlAPI+Live.swift).
    func events(_ request: HTTPRequest, projectId: String?, device: DeviceID?) throws(FCMError) -> HTTPResponse {
        let query = try eventQuery(request, projectId: projectId, device: device, extra: ["since", "until", "limit"] + Self.waitParameters)
        let read = { @Sendable () throws(FCMError) -> [Event] in try emulator.events(query) }
        let answer = { @Sendable (events: [Event]) in
            ControlJSON.response(.object([("events", .array(events.map(ControlJSON.event)))]))
        }
        guard let wait = try waitRequest(request, limit: query.limit) else { return answer(try read()) }
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
