// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// `timers.jsonl`: every pending timer, one compact line each, in the queue's storage order:
///
///     [deadline, sequence, "expire", device, storeSequence]
///     [deadline, sequence, "doze", device, generation]
///     [deadline, sequence, "retry", device]
///
/// The sequence orders timers due at the same instant, so they fire after an import in the
/// order they would have fired before it.
enum TimerLines {
    static func write(_ image: WorldImage, _ w: inout LineWriter) throws {
        try image.forEachTimer { t in
            w.byte(UInt8(ascii: "["))
            w.int(t.deadline.millis)
            w.byte(UInt8(ascii: ","))
            w.int(t.sequence)
            switch t.action {
            case .expire(let device, let sequence):
                w.raw(",\"expire\",")
                w.int(device)
                w.byte(UInt8(ascii: ","))
                w.int(sequence)
            case .dozeMaintenance(let device, let generation):
                w.raw(",\"doze\",")
                w.int(device)
                w.byte(UInt8(ascii: ","))
                w.int(generation)
            case .retryDelivery(let device):
                w.raw(",\"retry\",")
                w.int(device)
            }
            w.byte(UInt8(ascii: "]"))
            try w.endLine()
        }
    }

    static func read(_ json: JSONValue) throws(SnapshotProblem) -> SnapshotRecord.Timer {
        let shape = "a timer is [deadline, sequence, \"expire\"|\"doze\"|\"retry\", device, …]"
        guard let a = json.arrayValue, a.count >= 4, let deadline = a[0].int64Value, let sequence = a[1].int64Value, sequence >= 0,
            let kind = a[2].stringValue, let device = a[3].int64Value.flatMap({ DeviceID(exactly: $0) })
        else { throw SnapshotProblem(shape) }
        let action: SnapshotRecord.Timer.Action
        switch (kind, a.count) {
        case ("expire", 5):
            guard let s = a[4].int64Value, s >= 0 else { throw SnapshotProblem(shape) }
            action = .expire(device: device, storeSequence: UInt64(s))
        case ("doze", 5):
            guard let g = a[4].int64Value.flatMap({ UInt32(exactly: $0) }) else { throw SnapshotProblem(shape) }
            action = .dozeMaintenance(device: device, generation: g)
        case ("retry", 4):
            action = .retryDelivery(device: device)
        default:
            throw SnapshotProblem(shape)
        }
        return SnapshotRecord.Timer(deadline: Instant(millis: deadline), sequence: UInt64(sequence), action: action)
    }
}

/// `events.jsonl` (only with `include: ["events"]`): the event log, oldest first.
enum EventLines {
    static func write(_ events: [Event], refs: inout MessageRefs, _ w: inout LineWriter) throws {
        for e in events {
            try w.line(
                .object(omittingNils: [
                    ("sequence", .int(e.sequence)), ("time", .int(e.time.millis)), ("kind", .string(e.kind.rawValue)),
                    ("device", e.device.map(JSONValue.int)), ("message", e.message.map { .int(refs.ref($0)) }),
                    ("related", e.related.map { .int(refs.ref($0)) }), ("detail", e.detail.map(JSONValue.string)),
                    ("call", e.call.map(encodeCall)),
                ]))
        }
    }

    static func read(_ json: JSONValue, messages: [Message]) throws(SnapshotProblem) -> Event {
        var f = try JSONFields(json, "event")
        let device = try f.optionalInt("device").map { v throws(SnapshotProblem) -> DeviceID in
            guard let d = DeviceID(exactly: v) else { throw SnapshotProblem("event.device is out of range") }
            return d
        }
        let event = Event(
            restoring: Int(try f.number("sequence", as: Int.self)), time: try f.instant("time"),
            kind: try f.enumValue("kind", as: Event.Kind.self), device: device,
            message: try messageRef(f.optionalInt("message"), messages), related: try messageRef(f.optionalInt("related"), messages),
            detail: try f.optionalString("detail"), call: try f.optional("call").map(decodeCall))
        try f.finish()
        return event
    }

    /// A `refused` or `faultInjected` event's request: `{"project", "api", "status", "code", "target"}`.
    private static func encodeCall(_ c: EventCall) -> JSONValue {
        .object(omittingNils: [
            ("project", c.project.map(JSONValue.string)), ("api", c.api.map(JSONValue.string)), ("status", c.status.map(JSONValue.int)),
            ("code", c.code.map(JSONValue.string)), ("target", c.target.map(JSONValue.string)),
        ])
    }

    private static func decodeCall(_ json: JSONValue) throws(SnapshotProblem) -> EventCall {
        var f = try JSONFields(json, "event.call")
        // The same caps as a live refusal's texts: an imported log costs what a live one does.
        func text(_ key: String) throws(SnapshotProblem) -> String? {
            guard let value = try f.optionalString(key) else { return nil }
            guard value.utf8.count <= Refusal.maxTextBytes + 3 else {
                throw SnapshotProblem("event.call.\(key) is longer than \(Refusal.maxTextBytes) bytes")
            }
            return value
        }
        let status = try f.optionalInt("status")
        if let status, !(100...599).contains(status) { throw SnapshotProblem("event.call.status must be an HTTP status") }
        let call = EventCall(
            project: try text("project"), api: try text("api"), status: status.map { Int($0) }, code: try text("code"),
            target: try text("target"))
        try f.finish()
        return call
    }
}
