// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// Sending as an app server does, reading what a device received, and the clock.
extension EmulatorTool {
    /// The largest `message` sent, encoded: FCM's payload limit is 4096 bytes (the "About FCM
    /// messages" guide), so this leaves room to see the emulator refuse an oversized one.
    static let maxMessageBytes = 64 << 10
    static let maxInbox = 100
    static let maxEvents = 200

    static let sendMessage = EmulatorTool(
        name: "send_message",
        description: "Send a message through the emulator's FCM HTTP v1 endpoint (projects.messages.send) with the project's "
            + "service-account credentials, as an app server would; answers the message name or FCM's error.",
        properties: [
            "project": ToolSchema.project,
            "message": ToolSchema.anyObject(
                "A v1 Message: one of token, topic or condition, and notification, data, android, apns, webpush as FCM takes them "
                    + "(e.g. {\"token\": \"…\", \"notification\": {\"title\": \"Hi\"}})"),
            "validate_only": ToolSchema.boolean("Check the message without sending it"),
        ], required: ["project", "message"]
    ) { arguments, backend in
        let project = try arguments.required("project")
        let message = try arguments.object("message")
        guard message.encoded().utf8.count <= maxMessageBytes else {
            throw ToolFailure("message is larger than \(maxMessageBytes) bytes encoded")
        }
        let body = JSONValue.object(omittingNils: [
            ("message", message), ("validate_only", try arguments.bool("validate_only").map(JSONValue.bool)),
        ])
        let path = "/v1/projects/\(EmulatorBackend.segment(project))/messages:send"
        var (status, answer) = try await backend.callAsApp("POST", path, body: body, bearer: try await bearer(project, backend))
        if status == 401 {
            // Expired or revoked (`POST …/accessTokens:revoke`): a new one, and one more try, as
            // google-auth's AuthorizedSession does on 401.
            await backend.tokens.forget(project)
            (status, answer) = try await backend.callAsApp("POST", path, body: body, bearer: try await bearer(project, backend))
        }
        guard status == 200, let name = answer?["name"]?.stringValue else {
            throw EmulatorBackend.failure(status: status, json: answer, method: "POST", path: path)
        }
        return Output(text: "Accepted: \(name)", structured: .object([("name", .string(name))]))
    }

    /// The project's access token: the one kept, or one the control API mints as the token
    /// endpoint would for the project's service account (`POST …/accessTokens`).
    static func bearer(_ project: String, _ backend: EmulatorBackend) async throws -> String {
        if let kept = await backend.tokens.token(for: project) { return kept }
        let grant = try await backend.call("POST", "\(EmulatorBackend.projectPath(project))/accessTokens")
        guard let token = grant["accessToken"]?.stringValue else { throw ToolFailure("the emulator issued no access token for \(project)") }
        await backend.tokens.keep(token, for: project)
        return token
    }

    static let readInbox = EmulatorTool(
        name: "read_inbox",
        description: "What a device's app received, newest first, as rendered for its platform (at most \(maxInbox)).",
        properties: [
            "project": ToolSchema.project, "device": ToolSchema.device,
            "limit": ToolSchema.integer("How many, newest first (default 10)", 1...maxInbox),
        ], required: ["project", "device"]
    ) { arguments, backend in
        let (project, device) = (try arguments.required("project"), try arguments.required("device"))
        let limit = try arguments.integer("limit", in: 1...maxInbox, default: 10)
        let inbox = try await backend.call("GET", EmulatorBackend.devicePath(project, device) + "/inbox")
        let all = inbox["deliveries"]?.arrayValue ?? []
        let shown = Array(all.reversed().prefix(limit))
        let owner = inbox["device"].map(describe) ?? "device \(device)"
        let head =
            shown.count < all.count
            ? "showing \(shown.count) of \(all.count) deliveries" : "\(all.count) deliver\(all.count == 1 ? "y" : "ies")"
        let lines = shown.map { delivery in
            let fields = ["time", "kind", "messageId", "handling", "priority"].map { delivery[$0]?.stringValue ?? "-" }
            let payload = delivery["payload"].map { String($0.encoded().prefix(300)) } ?? ""
            return "- " + fields.joined(separator: " ") + (payload.isEmpty ? "" : " " + payload)
        }
        return Output(
            text: (["\(head) for \(owner), newest first"] + lines).joined(separator: "\n"),
            structured: .object([("total", .int(all.count)), ("shown", .int(shown.count)), ("deliveries", .array(shown))])
        )
    }

    static let advanceClock = EmulatorTool(
        name: "advance_clock",
        description:
            "Move the emulator's clock forward, firing what falls due: TTL expiry, Doze maintenance windows, delivery latency.",
        properties: ["duration": ToolSchema.string("How far, e.g. 30s, 10m, 2h, 1h30m")], required: ["duration"]
    ) { arguments, backend in
        let by = try arguments.duration("duration")
        let clock = try await backend.call("POST", "\(EmulatorBackend.control)/clock:advance", body: .object([("by", .string(by))]))
        let pending = clock["pendingTimers"]?.int64Value.map { ", \($0) timers pending" } ?? ""
        return Output(text: "Clock now \(clock["now"]?.stringValue ?? "?")\(pending).", structured: clock)
    }

    static let listEvents = EmulatorTool(
        name: "list_events",
        description:
            "A project's event log, the newest events (at most \(maxEvents)): accepted, delivered, stored, expired, refused, …",
        properties: [
            "project": ToolSchema.project,
            "kind": ToolSchema.string("Only these kinds, comma-separated (e.g. accepted,delivered,refused)"),
            "device": ToolSchema.string("Only events of this device (id, name or token)"),
            "limit": ToolSchema.integer("How many of the newest (default 50)", 1...maxEvents),
        ], required: ["project"]
    ) { arguments, backend in
        let project = try arguments.required("project")
        let limit = try arguments.integer("limit", in: 1...maxEvents, default: 50)
        let query = EmulatorBackend.query([
            ("kind", try arguments.string("kind")), ("device", try arguments.string("device")), ("limit", String(limit)),
        ])
        let list = try await backend.call("GET", "\(EmulatorBackend.projectPath(project))/events\(query)")
        let events = list["events"]?.arrayValue ?? []
        let more = list["nextBefore"] != nil ? " (older ones remain: showing the newest \(events.count))" : ""
        let lines = events.map { event in
            let fields = ["time", "kind", "device", "messageId"].map { event[$0]?.stringValue ?? "-" }
            return "- " + fields.joined(separator: " ") + (event["detail"]?.stringValue.map { " " + $0 } ?? "")
        }
        return Output(
            text: (["\(events.count) event\(events.count == 1 ? "" : "s") in \(project)\(more)"] + lines).joined(separator: "\n"),
            structured: .object([("events", .array(events)), ("more", .bool(list["nextBefore"] != nil))]))
    }
}
