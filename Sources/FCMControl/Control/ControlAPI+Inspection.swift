// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// What the dashboard shows beside the lists: a device list's search, what a device holds now
/// (store and forward), and the clock's pending timers.
extension ControlAPI {
    static let deviceListParameters: Set<String> = ["offset", "limit", "q", "platform", "state"]
    /// Timers one `GET /clock/timers` page lists at most (the queue may hold millions).
    static let maxTimersPerPage = 1000

    /// `?q=&platform=&state=` of a device list.
    static func deviceQuery(_ request: HTTPRequest) throws(FCMError) -> DeviceQuery {
        for (key, _) in request.query where !deviceListParameters.contains(key) {
            throw FCMError(
                .invalidArgument, "Unknown query parameter '\(key)'; expected one of: \(deviceListParameters.sorted().joined(separator: ", "))",
                field: key)
        }
        func choice<T: RawRepresentable & CaseIterable>(_ name: String, _: T.Type) throws(FCMError) -> T? where T.RawValue == String {
            guard let text = request.queryValue(name), !text.isEmpty else { return nil }
            guard let value = T(rawValue: text) else {
                throw FCMError(
                    .invalidArgument, "\(name) must be one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))", field: name)
            }
            return value
        }
        let text = request.queryValue("q")
        if let text, text.utf8.count > 4096 { throw FCMError(.invalidArgument, "q is at most 4096 bytes", field: "q") }
        return DeviceQuery(text: text, platform: try choice("platform", Platform.self), state: try choice("state", DeviceState.self))
    }

    func registerInspection(into router: inout Router) {
        let p = Self.prefix
        router.add(
            "GET", "\(p)/projects/{project}/devices/{device}/stored",
            handle { _, params throws(FCMError) in
                let (info, stored) = try emulator.storedMessages(try params.require("device"), projectId: try params.require("project"))
                return ControlJSON.response(
                    .object([("device", ControlJSON.device(info)), ("stored", .array(stored.map(ControlJSON.stored)))]))
            })
        router.add(
            "GET", "\(p)/clock/timers",
            handle { request, _ throws(FCMError) in
                for (key, _) in request.query where key != "offset" && key != "limit" {
                    throw FCMError(.invalidArgument, "Unknown query parameter '\(key)'; expected offset or limit", field: key)
                }
                let (offset, limit) = try Self.pageQuery(request, defaultLimit: 100)
                guard limit <= Self.maxTimersPerPage else {
                    throw FCMError(.invalidArgument, "limit is at most \(Self.maxTimersPerPage) for timers", field: "limit")
                }
                let (total, page) = emulator.pendingTimers(offset: offset, limit: limit)
                let next = offset + page.count < total ? JSONValue.int(offset + page.count) : nil
                return ControlJSON.response(
                    .object(omittingNils: [
                        ("timers", .array(page.map(ControlJSON.timer))), ("total", .int(total)), ("nextOffset", next),
                    ]))
            })
    }
}

extension ControlJSON {
    /// A stored message: when it may go and when it expires, and what it says (title, data keys).
    static func stored(_ s: StoredMessageInfo) -> JSONValue {
        .object(omittingNils: [
            ("messageId", .string(s.message.id)),
            ("acceptedAt", .string(s.message.acceptedAt.iso8601)),
            ("availableAt", .string(s.availableAt.iso8601)),
            ("expiresAt", s.expiresAt.map { .string($0.iso8601) }),
            ("priority", .string(s.priority.rawValue)),
            ("collapseKey", s.collapseKey.map(JSONValue.string)),
            ("api", .string(s.message.api.rawValue)),
            ("target", .string(s.message.target.description)),
        ] + summary(s.message))
    }

    static func timer(_ t: PendingTimerInfo) -> JSONValue {
        .object(omittingNils: [
            ("at", .string(t.at.iso8601)),
            ("what", .string(t.what.rawValue)),
            ("project", t.projectId.map(JSONValue.string)),
            ("device", .string(String(t.device))),
            ("messageId", t.messageId.map(JSONValue.string)),
        ])
    }

    /// Characters of a title or data summary an event or stored message repeats at most.
    static let summaryLimit = 120

    /// `title` (the notification's) and `dataSummary` (`key=value, …`), each cut at `summaryLimit`
    /// characters, so a list can show what a message says in one line without its whole payload.
    static func summary(_ message: Message) -> [(String, JSONValue?)] {
        func cut(_ text: String) -> String { text.count <= summaryLimit ? text : String(text.prefix(summaryLimit - 1)) + "…" }
        let content = message.content
        let title = content.notification?.title
        let data = content.data.isEmpty ? nil : content.data.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
        return [("title", title.map { .string(cut($0)) }), ("dataSummary", data.map { .string(cut($0)) })] + retry(message)
    }

    /// A send that repeats an earlier one (docs/simulation.md, "Retries made visible"): `retryOf`
    /// (the earlier accepted message, absent when every earlier attempt was refused), `attempt`,
    /// and `retryGapsMillis` between consecutive attempts, oldest first.
    static func retry(_ message: Message) -> [(String, JSONValue?)] {
        guard let retry = message.retry else { return [] }
        return [
            ("retryOf", retry.of.map(JSONValue.string)), ("attempt", .int(retry.attempt)),
            ("retryGapsMillis", .array(retry.gapsMillis.map { .int($0) })),
        ]
    }
}
