// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// How the control API writes the core's values.
enum ControlJSON {
    static func response(status: Int = 200, _ body: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=UTF-8", body: body.encoded(.pretty) + "\n")
    }

    static func project(_ p: Project) -> JSONValue {
        .object([
            ("id", .string(p.id)), ("number", .string(p.number)), ("senderId", .string(p.number)),
            ("serverKeys", .array(p.serverKeys.map(JSONValue.string))), ("createdAt", .string(p.createdAt.iso8601)),
            ("apiEnabled", .bool(p.apiEnabled)),
        ])
    }

    static func device(_ d: DeviceInfo) -> JSONValue { device(d, topics: true) }

    /// - Parameter topics: false leaves `topics` out (an answer that lists them once for all).
    static func device(_ d: DeviceInfo, topics: Bool) -> JSONValue {
        .object(omittingNils: [
            ("id", .string(String(d.id))),
            ("name", d.name.map(JSONValue.string)),
            ("projectId", .string(d.projectId)),
            ("platform", .string(d.platform.rawValue)),
            ("clientSdk", d.platform == .android ? .string(d.clientSdk.rawValue) : nil),
            ("appId", .string(d.appId)),
            ("token", .string(d.token)),
            ("fid", .string(d.fid)),
            ("state", .string(d.state.rawValue)),
            ("tokenValid", .bool(d.tokenValid)),
            ("senders", .array(d.senders.map(JSONValue.string))),
            ("topics", topics ? .array(d.topics.map(JSONValue.string)) : nil),
            ("createdAt", .string(d.createdAt.iso8601)),
            ("lastConnectedAt", .string(d.lastConnectedAt.iso8601)),
            ("lastSeenAt", .string(d.lastSeenAt.iso8601)),
            ("storedCount", .int(d.storedCount)),
            ("storedCollapsible", .int(d.storedCollapsible)),
            ("storedNonCollapsible", .int(d.storedNonCollapsible)),
            ("lastDeliveryAt", d.lastDeliveryAt.map { .string($0.iso8601) }),
            ("deliveredCount", .int(d.deliveredCount)),
            ("deletedMessagesPending", .bool(d.deletedSignalOwed)),
            ("webPush", d.webPush.map { webPush($0, token: d.token) }),
            ("receiver", d.receiver.map { receiver($0, connected: d.receiverConnected) }),
        ])
    }

    /// A real receiver's registration (docs/receivers.md, "Real receivers").
    static func receiver(_ link: ReceiverLink, connected: Bool) -> JSONValue {
        .object(omittingNils: [
            ("protocol", .string("mcs")),
            ("androidId", .string(String(link.androidId))),
            ("connected", .bool(connected)),
            ("app", .string(link.category)),
            ("subtype", .string(link.subtype)),
            ("endpoint", .string("https://fcm.googleapis.com/fcm/send/" + link.gcmToken)),
            ("keys", .object([("p256dh", .string(Base64URLCodec.encode(link.p256dh))), ("auth", .string(Base64URLCodec.encode(link.auth)))])),
            ("applicationServerKey", link.applicationServerKey.map { .string(Base64URLCodec.encode($0)) }),
        ])
    }

    /// A web device's subscription as `PushSubscription.toJSON()` gives it to publishers (Push API;
    /// RFC 8291 §3.2 for the keys), its endpoint on FCM's host (docs/receivers.md).
    static func webPush(_ s: WebPushSubscription, token: String) -> JSONValue {
        .object(omittingNils: [
            ("endpoint", .string("https://fcm.googleapis.com/fcm/send/" + token)),
            ("expirationTime", .null),
            (
                "keys",
                .object([
                    ("p256dh", .string(Base64URLCodec.encode(s.publicKey))), ("auth", .string(Base64URLCodec.encode(s.authSecret))),
                ])
            ),
            ("applicationServerKey", s.applicationServerKey.map { .string(Base64URLCodec.encode($0)) }),
        ])
    }

    /// A delivery as the app got it: on `platform`, built with `clientSdk` (Android).
    static func delivery(_ d: Delivery, platform: Platform, clientSdk: ClientSDK = .current) -> JSONValue {
        .object(omittingNils: [
            ("kind", .string(d.kind.rawValue)),
            ("messageId", d.message.map { .string($0.id) }),
            ("time", .string(d.time.iso8601)),
            ("handling", .string(d.handling.rawValue)),
            ("callback", .string(d.callback(on: platform, clientSdk: clientSdk))),
            ("appState", .string(d.appState.rawValue)),
            ("priority", d.message == nil ? nil : .string(d.priority.rawValue)),
            ("originalPriority", d.message == nil ? nil : .string(d.originalPriority.rawValue)),
            ("apnsPriority", platform == .ios ? d.apnsPriority.map { JSONValue.int($0) } : nil),
            ("collapseKey", d.collapseKey.map(JSONValue.string)),
            ("ttl", d.message == nil ? nil : .string("\(d.ttlSeconds)s")),
            ("api", d.message.map { .string($0.api.rawValue) }),
            ("payload", d.message == nil ? nil : d.payload(on: platform, clientSdk: clientSdk)),
        ])
    }

    /// An event; `project` when the caller resolved it (a device's), else the one the event names.
    /// `refused` events add `api`, `status` (HTTP only) and `code`, as the client saw them.
    static func event(_ e: Event, project: String? = nil) -> JSONValue {
        let fields: [(String, JSONValue?)] = [
            ("sequence", .int(e.sequence)),
            ("project", (project ?? e.call?.project ?? e.message?.projectId).map(JSONValue.string)),
            ("time", .string(e.time.iso8601)),
            ("kind", .string(e.kind.rawValue)),
            ("api", e.call?.api.map(JSONValue.string)),
            ("status", e.call?.status.map(JSONValue.int)),
            ("code", e.call?.code.map(JSONValue.string)),
            ("device", e.device.map { .string(String($0)) }),
            ("messageId", e.message.map { .string($0.id) }),
            ("relatedMessageId", e.related.map { .string($0.id) }),
            ("target", (e.message?.target.description ?? e.call?.target).map(JSONValue.string)),
            ("detail", e.detail.map(JSONValue.string)),
        ]
        // What an accepted message says, in one line (the dashboard's messages panel).
        guard e.kind == .accepted, let message = e.message else { return .object(omittingNils: fields) }
        return .object(omittingNils: fields + summary(message))
    }

    static func connection(_ c: CCSConnectionInfo) -> JSONValue {
        .object([
            ("id", .string(String(c.id))), ("sender", .string(c.sender)), ("state", .string(c.draining ? "draining" : "active")),
            ("inFlight", .int(c.inFlight)), ("connectedAt", .string(c.connectedAt.iso8601)),
        ])
    }

    static func group(_ g: DeviceGroup) -> JSONValue {
        .object([
            ("name", .string(g.name)), ("notificationKey", .string(g.notificationKey)),
            ("tokens", .array(g.tokens.map(JSONValue.string))), ("createdAt", .string(g.createdAt.iso8601)),
        ])
    }

    static func clock(_ c: Emulator.ClockStatus) -> JSONValue {
        .object(omittingNils: [
            ("now", .string(c.now.iso8601)),
            ("nowMillis", .int(c.now.millis)),
            ("mode", .string(c.mode.rawValue)),
            ("paused", .bool(c.paused)),
            ("speed", .double(c.speed)),
            ("nextTimer", c.nextTimer.map { .string($0.iso8601) }),
            ("pendingTimers", .int(c.pendingTimers)),
        ])
    }
}
