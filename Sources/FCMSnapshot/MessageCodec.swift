// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// Messages in `messages.jsonl`, each written once however many devices store it: one send to a
/// topic of a million devices is one message shared by a million stored copies.
enum MessageCodec {
    static func encode(_ m: Message, ref: Int) -> JSONValue {
        let target: JSONValue
        switch m.target {
        case .token(let t): target = .object([("token", .string(t))])
        case .fid(let f): target = .object([("fid", .string(f))])
        case .topic(let t): target = .object([("topic", .string(t))])
        case .condition(let c): target = .object([("condition", .string(c.text))])
        case .notificationKey(let k): target = .object([("notificationKey", .string(k))])
        }
        // `retry` only on a send that repeated an earlier one: other lines read as before.
        let retry = m.retry.map { r in
            JSONValue.object(
                omittingNils: [
                    ("of", r.of.map(JSONValue.string)), ("attempt", .int(r.attempt)), ("gapsMillis", .array(r.gapsMillis.map { .int($0) })),
                ])
        }
        return .object(
            omittingNils: [
                ("ref", .int(ref)), ("id", .string(m.id)), ("projectId", .string(m.projectId)), ("senderId", .string(m.senderId)),
                ("target", target), ("api", .string(m.api.rawValue)), ("acceptedAt", .int(m.acceptedAt.millis)),
                ("content", content(m.content)), ("retry", retry),
            ])
    }

    static func decode(_ json: JSONValue, expectedRef: Int) throws(SnapshotProblem) -> Message {
        var f = try JSONFields(json, "message")
        guard try f.int("ref") == Int64(expectedRef) else {
            throw SnapshotProblem("message ref must be \(expectedRef) (refs count from 0)")
        }
        var t = try JSONFields(try f.required("target"), "message.target")
        let target: MessageTarget
        if let v = try t.optionalString("token") {
            target = .token(v)
        } else if let v = try t.optionalString("fid") {
            target = .fid(v)
        } else if let v = try t.optionalString("topic") {
            target = .topic(v)
        } else if let v = try t.optionalString("condition") {
            do throws(FCMError) {
                target = .condition(try TopicCondition.parse(v, limits: .v1))
            } catch {
                throw SnapshotProblem("message.target.condition: \(error.message)")
            }
        } else if let v = try t.optionalString("notificationKey") {
            target = .notificationKey(v)
        } else {
            throw SnapshotProblem("message.target names no token, fid, topic, condition or notificationKey")
        }
        try t.finish()
        let message = Message.restored(
            id: try f.string("id"), projectId: try f.string("projectId"), senderId: try f.string("senderId"), target: target,
            content: try content(try f.required("content")), api: try f.enumValue("api", as: SourceAPI.self),
            acceptedAt: try f.instant("acceptedAt"), retry: try f.optional("retry").map(retry))
        try f.finish()
        return message
    }

    /// `{"of", "attempt", "gapsMillis"}`: an attempt of 2 or more, at most `maxGaps` gaps, none negative.
    private static func retry(_ json: JSONValue) throws(SnapshotProblem) -> RetryMark {
        var f = try JSONFields(json, "message.retry")
        let attempt = try f.int("attempt")
        let gaps = try f.array("gapsMillis").map { $0.int64Value }
        guard (2...Int64(Int32.max)).contains(attempt), gaps.count <= 8, gaps.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw SnapshotProblem("message.retry: attempt ≥ 2 and at most 8 gaps of 0 ms or more")
        }
        let mark = RetryMark(of: try f.optionalString("of"), attempt: Int(attempt), gapsMillis: gaps.compactMap { $0 })
        try f.finish()
        return mark
    }

    // MARK: - Content

    private static func content(_ c: MessageContent) -> JSONValue {
        .object(omittingNils: [
            ("data", c.data.isEmpty ? nil : pairsJSON(c.data)),
            (
                "notification",
                c.notification.map { n in
                    .object(omittingNils: [
                        ("title", n.title.map(JSONValue.string)), ("body", n.body.map(JSONValue.string)),
                        ("image", n.image.map(JSONValue.string)),
                    ])
                }
            ),
            (
                "android",
                c.android.map { a in
                    .object(omittingNils: [
                        ("collapseKey", a.collapseKey.map(JSONValue.string)), ("priority", a.priority.map { .string($0.rawValue) }),
                        ("ttlSeconds", a.ttlSeconds.map(JSONValue.int)),
                        ("restrictedPackageName", a.restrictedPackageName.map(JSONValue.string)), ("data", a.data.map(pairsJSON)),
                        ("notification", a.notification.isEmpty ? nil : .object(a.notification)),
                        ("v2", a.v2.map(androidV2)),
                    ])
                }
            ),
            (
                "apns",
                c.apns.map { a in
                    .object(omittingNils: [
                        ("headers", a.headers.isEmpty ? nil : pairsJSON(a.headers)),
                        ("payload", a.payload.isEmpty ? nil : .object(a.payload)), ("image", a.image.map(JSONValue.string)),
                    ])
                }
            ),
            (
                "webpush",
                c.webpush.map { w in
                    .object(omittingNils: [
                        ("headers", w.headers.isEmpty ? nil : pairsJSON(w.headers)), ("data", w.data.map(pairsJSON)),
                        ("notification", w.notification.map { .object($0) }), ("link", w.link.map(JSONValue.string)),
                        ("rawData", w.rawData.map { .string(Base64URLCodec.encode($0)) }),
                    ])
                }
            ),
            ("collapseKey", c.collapseKey.map(JSONValue.string)), ("priority", c.priority.map { .string($0.rawValue) }),
            ("ttlSeconds", c.ttlSeconds.map(JSONValue.int)), ("contentAvailable", c.contentAvailable ? .bool(true) : nil),
            ("mutableContent", c.mutableContent ? .bool(true) : nil),
            ("restrictedPackageName", c.restrictedPackageName.map(JSONValue.string)),
            ("deliveryReceiptRequested", c.deliveryReceiptRequested ? .bool(true) : nil),
            ("clientMessageId", c.clientMessageId.map(JSONValue.string)), ("measuredPayloadSize", c.measuredPayloadSize.map(JSONValue.int)),
        ])
    }

    private static func content(_ json: JSONValue) throws(SnapshotProblem) -> MessageContent {
        var f = try JSONFields(json, "message.content")
        var c = MessageContent(data: try f.pairs("data") ?? [])
        if let n = f.optional("notification") {
            var g = try JSONFields(n, "message.content.notification")
            c.notification = NotificationContent(
                title: try g.optionalString("title"), body: try g.optionalString("body"), image: try g.optionalString("image"))
            try g.finish()
        }
        if let a = f.optional("android") {
            var g = try JSONFields(a, "message.content.android")
            c.android = AndroidOptions(
                collapseKey: try g.optionalString("collapseKey"), priority: try priority(&g), ttlSeconds: try g.optionalInt("ttlSeconds"),
                restrictedPackageName: try g.optionalString("restrictedPackageName"), data: try g.pairs("data"),
                notification: try object(&g, "notification") ?? [], v2: try g.optional("v2").map(androidV2))
            try g.finish()
        }
        if let a = f.optional("apns") {
            var g = try JSONFields(a, "message.content.apns")
            c.apns = APNsOptions(
                headers: try g.pairs("headers") ?? [], payload: try object(&g, "payload") ?? [], image: try g.optionalString("image"))
            try g.finish()
        }
        if let w = f.optional("webpush") {
            var g = try JSONFields(w, "message.content.webpush")
            c.webpush = WebpushOptions(
                headers: try g.pairs("headers") ?? [], data: try g.pairs("data"), notification: try object(&g, "notification"),
                link: try g.optionalString("link"))
            if let raw = try g.optionalString("rawData") {
                // An RFC 8030 push's plaintext, base64url (docs/receivers.md); at most 4096 bytes.
                guard let bytes = Base64URLCodec.decode(raw, maxBytes: 8192) else {
                    throw SnapshotProblem("message.content.webpush.rawData must be base64url")
                }
                c.webpush?.rawData = bytes
            }
            try g.finish()
        }
        c.collapseKey = try f.optionalString("collapseKey")
        c.priority = try priority(&f)
        c.ttlSeconds = try f.optionalInt("ttlSeconds")
        c.contentAvailable = try f.bool("contentAvailable")
        c.mutableContent = try f.bool("mutableContent")
        c.restrictedPackageName = try f.optionalString("restrictedPackageName")
        c.deliveryReceiptRequested = try f.bool("deliveryReceiptRequested")
        c.clientMessageId = try f.optionalString("clientMessageId")
        c.measuredPayloadSize = try f.optionalInt("measuredPayloadSize").map { Int($0) }
        try f.finish()
        return c
    }

    /// An `android_v2` message's type: `{"type": "remoteNotification", "mutableContent": …,
    /// "useAsV1DataMessage": …}` or `{"type": "backgroundSync"}`.
    private static func androidV2(_ type: AndroidV2Type) -> JSONValue {
        switch type {
        case .remoteNotification(let mutableContent, let useAsV1DataMessage):
            return .object(omittingNils: [
                ("type", .string("remoteNotification")), ("mutableContent", mutableContent ? .bool(true) : nil),
                ("useAsV1DataMessage", useAsV1DataMessage ? .bool(true) : nil),
            ])
        case .backgroundSync:
            return .object([("type", .string("backgroundSync"))])
        }
    }

    private static func androidV2(_ json: JSONValue) throws(SnapshotProblem) -> AndroidV2Type {
        var f = try JSONFields(json, "message.content.android.v2")
        let type: AndroidV2Type
        switch try f.string("type") {
        case "remoteNotification":
            type = .remoteNotification(mutableContent: try f.bool("mutableContent"), useAsV1DataMessage: try f.bool("useAsV1DataMessage"))
        case "backgroundSync":
            type = .backgroundSync
        case let other:
            throw SnapshotProblem("message.content.android.v2.type \"\(other)\" is neither remoteNotification nor backgroundSync")
        }
        try f.finish()
        return type
    }

    private static func priority(_ f: inout JSONFields) throws(SnapshotProblem) -> Priority? {
        guard f.optional("priority") != nil else { return nil }
        return try f.enumValue("priority", as: Priority.self)
    }

    private static func object(_ f: inout JSONFields, _ key: String) throws(SnapshotProblem) -> [(String, PayloadValue)]? {
        guard let value = f.optional(key) else { return nil }
        guard let pairs = value.objectValue else { throw SnapshotProblem("\(key) must be an object") }
        return pairs
    }
}
