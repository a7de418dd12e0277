// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// `devices.jsonl`: one line per device slot, in id order. The big file (a million lines), so it
/// is written byte by byte; defaults are left out (README, "Snapshots").
///
///     {"id":0,"project":0,"platform":"android","appId":"com.example","token":"…","fid":"…",
///      "state":"offline","createdAt":…,"lastConnectedAt":…,"stored":[[0,12,…,…,1,2419200,null]]}
///     {"id":1,"project":0,"deleted":true}
///
/// A stored copy is `[message ref, store sequence, availableAt, expiresAt or null, flags, ttl
/// seconds, collapse key or null]`; flags: 1 notification, 2 content-available, 4 high priority,
/// 8 high priority as requested.
enum DeviceLines {
    static func write(_ image: WorldImage, inbox: Bool, refs: inout MessageRefs, _ w: inout LineWriter) throws {
        for slot in 0..<image.deviceSlotCount {
            w.byte(UInt8(ascii: "{"))
            w.key("id", first: true)
            w.int(slot)
            guard let d = image.device(slot, inbox: inbox) else {
                w.key("project")
                w.int(image.projectIndex(ofSlot: slot))
                w.raw(",\"deleted\":true}")
                try w.endLine()
                continue
            }
            w.key("project")
            w.int(d.projectIndex)
            w.key("platform")
            w.string(d.platform.rawValue)
            // Only a legacy one: the fast reader takes the rest, and older snapshots mean `current`.
            if d.clientSdk != .current {
                w.key("clientSdk")
                w.string(d.clientSdk.rawValue)
            }
            if let name = d.name {
                w.key("name")
                w.string(name)
            }
            w.key("appId")
            w.string(d.appId)
            w.key("token")
            w.string(d.token)
            if !d.tokenValid { w.raw(",\"tokenValid\":false") }
            w.key("fid")
            w.string(d.fid)
            w.key("state")
            w.string(d.state.rawValue)
            w.key("createdAt")
            w.int(d.createdAt.millis)
            w.key("lastConnectedAt")
            w.int(d.lastConnectedAt.millis)
            // Only when it differs: a device last seen when it last connected needs no more.
            if let seen = d.lastSeenAt, seen != d.lastConnectedAt {
                w.key("lastSeenAt")
                w.int(seen.millis)
            }
            if let at = d.lastInactiveDiscardAt {
                w.key("lastInactiveDiscardAt")
                w.int(at.millis)
            }
            if d.deletedSignalOwed { w.raw(",\"deletedSignalOwed\":true") }
            if d.stateGeneration != 0 {
                w.key("stateGeneration")
                w.int(d.stateGeneration)
            }
            if !d.extraSenders.isEmpty {
                w.key("senders")
                w.byte(UInt8(ascii: "["))
                for (i, s) in d.extraSenders.enumerated() {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.string(s)
                }
                w.byte(UInt8(ascii: "]"))
            }
            if !d.topics.isEmpty {
                w.key("topics")
                w.byte(UInt8(ascii: "["))
                for (i, (topic, since)) in d.topics.enumerated() {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.byte(UInt8(ascii: "["))
                    w.string(topic)
                    w.byte(UInt8(ascii: ","))
                    w.int(since.millis)
                    w.byte(UInt8(ascii: "]"))
                }
                w.byte(UInt8(ascii: "]"))
            }
            if !d.stored.isEmpty {
                w.key("stored")
                w.byte(UInt8(ascii: "["))
                // By index: the list's type lives in FCMCore, and its generic iterator costs more
                // than the writing (ten million copies).
                let stored = d.stored
                for i in 0..<stored.count {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    writeStored(stored[i], refs: &refs, &w)
                }
                w.byte(UInt8(ascii: "]"))
            }
            if d.unshownHighPriority != 0 {
                w.key("unshownHighPriority")
                w.int(d.unshownHighPriority)
            }
            if !d.tray.isEmpty {
                // Always kept (at most 50 a device): what the user sees, and what a tag replaces.
                w.key("tray")
                w.byte(UInt8(ascii: "["))
                for (i, entry) in d.tray.enumerated() {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.raw(DeliveryCodec.encode(entry, refs: &refs).encoded())
                }
                w.byte(UInt8(ascii: "]"))
            }
            if let push = d.webPush {
                // The subscription's secrets: the emulator is the browser and must decrypt after an
                // import (docs/receivers.md). The public key is derived, never stored.
                w.key("webPush")
                w.raw("{\"privateKey\":")
                w.string(Base64URLCodec.encode(push.privateKey))
                w.raw(",\"auth\":")
                w.string(Base64URLCodec.encode(push.authSecret))
                if let key = push.applicationServerKey {
                    w.raw(",\"applicationServerKey\":")
                    w.string(Base64URLCodec.encode(key))
                }
                w.byte(UInt8(ascii: "}"))
            }
            if let inbox = d.inbox, !inbox.isEmpty {
                w.key("inbox")
                w.byte(UInt8(ascii: "["))
                for (i, delivery) in inbox.enumerated() {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.raw(DeliveryCodec.encode(delivery, refs: &refs).encoded())
                }
                w.byte(UInt8(ascii: "]"))
            }
            w.byte(UInt8(ascii: "}"))
            try w.endLine()
        }
    }

    private static func writeStored(_ s: SnapshotRecord.Stored, refs: inout MessageRefs, _ w: inout LineWriter) {
        w.byte(UInt8(ascii: "["))
        w.int(refs.ref(s.message))
        w.byte(UInt8(ascii: ","))
        w.int(s.storeSequence)
        w.byte(UInt8(ascii: ","))
        w.int(s.availableAt.millis)
        w.byte(UInt8(ascii: ","))
        w.optionalInt(s.expiresAt?.millis)
        w.byte(UInt8(ascii: ","))
        let p = s.profile
        w.int(
            (p.isNotification ? 1 : 0) | (p.contentAvailable ? 2 : 0) | (p.priority == .high ? 4 : 0)
                | (p.originalPriority == .high ? 8 : 0))
        w.byte(UInt8(ascii: ","))
        w.int(p.ttlSeconds)
        w.byte(UInt8(ascii: ","))
        w.optionalString(p.collapseKey)
        w.byte(UInt8(ascii: "]"))
    }

    // MARK: - Reading

    /// One line: a live device, or the slot of a deleted one.
    static func parse(_ json: JSONValue, messages: [Message]) throws(SnapshotProblem) -> FastDevice {
        var f = try JSONFields(json, "device")
        let id = try f.number("id", as: DeviceID.self)
        let project = try f.number("project", as: Int32.self)
        if try f.bool("deleted") {
            try f.finish()
            return .deleted(id: id, project: project)
        }
        let platform = try f.enumValue("platform", as: Platform.self)
        let clientSdk = try f.optionalString("clientSdk").map { text throws(SnapshotProblem) -> ClientSDK in
            guard let sdk = ClientSDK(rawValue: text) else { throw SnapshotProblem("device.clientSdk must be current or legacy") }
            return sdk
        }
        let name = try f.optionalString("name")
        let appId = try f.string("appId")
        let token = try f.string("token")
        let tokenValid = try f.bool("tokenValid", default: true)
        let fid = try f.string("fid")
        let state = try f.enumValue("state", as: DeviceState.self)
        let createdAt = try f.instant("createdAt")
        let lastConnectedAt = try f.instant("lastConnectedAt")
        let lastInactiveDiscardAt = try f.optionalInstant("lastInactiveDiscardAt")
        let lastSeenAt = try f.optionalInstant("lastSeenAt")
        let deletedSignalOwed = try f.bool("deletedSignalOwed")
        let generation = try f.optionalInt("stateGeneration").map { v throws(SnapshotProblem) -> UInt32 in
            guard let g = UInt32(exactly: v) else { throw SnapshotProblem("device.stateGeneration is out of range") }
            return g
        }
        var senders: [String] = []
        for s in try f.array("senders") {
            guard let text = s.stringValue else { throw SnapshotProblem("device.senders must hold strings") }
            senders.append(text)
        }
        var topics: [(String, Instant)] = []
        for t in try f.array("topics") {
            guard let pair = t.arrayValue, pair.count == 2, let name = pair[0].stringValue, let since = pair[1].int64Value else {
                throw SnapshotProblem("device.topics must hold [\"topic\", millis] pairs")
            }
            topics.append((name, Instant(millis: since)))
        }
        var stored = SnapshotRecord.StoredList()
        for s in try f.array("stored") { stored.append(try readStored(s, messages: messages)) }
        var inbox: [Delivery]?
        if let items = f.optional("inbox") {
            guard let list = items.arrayValue else { throw SnapshotProblem("device.inbox must be an array") }
            var deliveries: [Delivery] = []
            for item in list { deliveries.append(try DeliveryCodec.decode(item, messages: messages)) }
            inbox = deliveries
        }
        let unshown = try f.optionalInt("unshownHighPriority").map { v throws(SnapshotProblem) -> Int32 in
            guard let n = Int32(exactly: v), n >= 0 else { throw SnapshotProblem("device.unshownHighPriority is out of range") }
            return n
        }
        var tray: [TrayEntry] = []
        for item in try f.array("tray") { tray.append(try DeliveryCodec.decodeTrayEntry(item, messages: messages)) }
        let webPush = try f.optional("webPush").map { json throws(SnapshotProblem) in try readWebPush(json) }
        try f.finish()
        var record = SnapshotRecord.Device(
            id: id, projectIndex: project, platform: platform, name: name, appId: appId, token: token, tokenValid: tokenValid, fid: fid,
            state: state, extraSenders: senders, topics: topics, createdAt: createdAt, lastConnectedAt: lastConnectedAt,
            lastInactiveDiscardAt: lastInactiveDiscardAt, deletedSignalOwed: deletedSignalOwed, stateGeneration: generation ?? 0,
            stored: stored, inbox: inbox, lastSeenAt: lastSeenAt)
        record.tray = tray
        record.unshownHighPriority = unshown ?? 0
        record.webPush = webPush
        record.clientSdk = clientSdk ?? .current
        return .live(record)
    }

    /// `{"privateKey":…,"auth":…,"applicationServerKey":…}`, base64url, checked as keys.
    private static func readWebPush(_ json: JSONValue) throws(SnapshotProblem) -> WebPushSubscription {
        var f = try JSONFields(json, "device.webPush")
        func bytes(_ text: String?, _ name: String) throws(SnapshotProblem) -> [UInt8]? {
            guard let text else { return nil }
            guard let decoded = Base64URLCodec.decode(text, maxBytes: 256) else { throw SnapshotProblem("device.webPush.\(name) must be base64url") }
            return decoded
        }
        let privateKey = try bytes(try f.string("privateKey"), "privateKey") ?? []
        let auth = try bytes(try f.string("auth"), "auth") ?? []
        let serverKey = try bytes(try f.optionalString("applicationServerKey"), "applicationServerKey")
        try f.finish()
        do throws(FCMError) {
            return try WebPushSubscription.restore(privateKey: privateKey, authSecret: auth, applicationServerKey: serverKey)
        } catch {
            throw SnapshotProblem("device.\(error.field ?? "webPush"): \(error.message)")
        }
    }

    private static func readStored(_ json: JSONValue, messages: [Message]) throws(SnapshotProblem) -> SnapshotRecord.Stored {
        guard let a = json.arrayValue, a.count == 7, let ref = a[0].int64Value, let sequence = a[1].int64Value,
            let available = a[2].int64Value, let flags = a[4].int64Value, let ttl = a[5].int64Value, sequence >= 0
        else { throw SnapshotProblem("device.stored must hold [ref, sequence, availableAt, expiresAt, flags, ttl, collapseKey]") }
        guard ref >= 0, ref < Int64(messages.count) else {
            throw SnapshotProblem("device.stored names message \(ref), which does not exist")
        }
        let expires: Instant?
        switch a[3] {
        case .null: expires = nil
        case let v:
            guard let millis = v.int64Value else { throw SnapshotProblem("device.stored expiresAt must be a number or null") }
            expires = Instant(millis: millis)
        }
        let collapseKey: String?
        switch a[6] {
        case .null: collapseKey = nil
        case .string(let s): collapseKey = s
        default: throw SnapshotProblem("device.stored collapse key must be a string or null")
        }
        let profile = SnapshotRecord.Profile(
            isNotification: flags & 1 != 0, contentAvailable: flags & 2 != 0, priority: flags & 4 != 0 ? .high : .normal,
            originalPriority: flags & 8 != 0 ? .high : .normal, ttlSeconds: ttl, collapseKey: collapseKey)
        return SnapshotRecord.Stored(
            message: messages[Int(ref)], storeSequence: UInt64(sequence), availableAt: Instant(millis: available), expiresAt: expires,
            profile: profile)
    }
}

/// A delivery in a device's inbox (only with `include: ["inboxes"]`).
enum DeliveryCodec {
    static func encode(_ d: Delivery, refs: inout MessageRefs) -> JSONValue {
        .object(omittingNils: [
            ("kind", .string(d.kind.rawValue)), ("message", d.message.map { .int(refs.ref($0)) }), ("time", .int(d.time.millis)),
            ("handling", .string(d.handling.rawValue)), ("appState", .string(d.appState.rawValue)),
            ("priority", .string(d.priority.rawValue)),
            ("originalPriority", .string(d.originalPriority.rawValue)), ("ttlSeconds", .int(d.ttlSeconds)),
            ("collapseKey", d.collapseKey.map(JSONValue.string)),
        ])
    }

    /// A tray entry: the delivery shown, and its tag.
    static func encode(_ entry: TrayEntry, refs: inout MessageRefs) -> JSONValue {
        var fields = encode(entry.delivery, refs: &refs).objectValue ?? []
        if let tag = entry.tag { fields.append(("tag", .string(tag))) }
        return .object(fields)
    }

    static func decodeTrayEntry(_ json: JSONValue, messages: [Message]) throws(SnapshotProblem) -> TrayEntry {
        var tag: String?
        var fields = json.objectValue ?? []
        if let index = fields.firstIndex(where: { $0.0 == "tag" }) {
            guard let text = fields[index].1.stringValue else { throw SnapshotProblem("device.tray tag must be a string") }
            tag = text
            fields.remove(at: index)
        }
        return TrayEntry(delivery: try decode(.object(fields), messages: messages), tag: tag)
    }

    static func decode(_ json: JSONValue, messages: [Message]) throws(SnapshotProblem) -> Delivery {
        var f = try JSONFields(json, "delivery")
        let message = try messageRef(f.optionalInt("message"), messages)
        let delivery = Delivery(
            restoring: try f.enumValue("kind", as: Delivery.Kind.self), message: message, time: try f.instant("time"),
            handling: try f.enumValue("handling", as: Delivery.Handling.self), appState: try f.enumValue("appState", as: DeviceState.self),
            priority: try f.enumValue("priority", as: Priority.self),
            originalPriority: try f.enumValue("originalPriority", as: Priority.self),
            ttlSeconds: try f.int("ttlSeconds"), collapseKey: try f.optionalString("collapseKey"))
        try f.finish()
        return delivery
    }
}

/// The message a ref names, if any; a ref past the messages file is a dangling reference.
func messageRef(_ ref: Int64?, _ messages: [Message]) throws(SnapshotProblem) -> Message? {
    guard let ref else { return nil }
    guard ref >= 0, ref < Int64(messages.count) else { throw SnapshotProblem("message \(ref) does not exist in messages.jsonl") }
    return messages[Int(ref)]
}
