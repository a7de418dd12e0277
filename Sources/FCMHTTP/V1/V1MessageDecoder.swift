// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Turns a v1 `SendMessageRequest` into the core's `SendRequest`, refusing what FCM refuses
/// before the message is accepted (the `Message` resource,
/// https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages, read by the proto3 JSON rules).
enum V1MessageDecoder {

    static func decode(_ body: [UInt8]) throws(V1Error) -> SendRequest {
        try decode(parse(body))
    }

    /// The body as JSON, or the transcoder's error for bytes that are not JSON.
    static func parse(_ body: [UInt8]) throws(V1Error) -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw V1Error.transcoder(field: "", message: "Invalid JSON payload received. Unexpected token.\n\(error)")
        }
    }

    /// A parsed body as a send, or the error Google gives for its first fault.
    static func decode(_ json: JSONValue) throws(V1Error) -> SendRequest {
        let request = try ProtoJSONReader.read(json, as: FCMSchema.sendRequest, path: "")
        let fields = Fields(request)
        guard let message = fields.object("message") else {
            throw V1Error.invalidArgument("Request contains an invalid argument.", field: "message")
        }
        let m = Fields(message)
        let target = try target(m)
        var content = MessageContent(data: m.stringMap("data") ?? [])
        if let n = m.object("notification").map(Fields.init) {
            content.notification = NotificationContent(title: n.string("title"), body: n.string("body"), image: n.string("image"))
        }
        if let a = m.object("android").map(Fields.init) { content.android = try android(a) }
        if let a = m.object("android_v2").map(Fields.init) { content.android = try androidV2(a) }
        if let a = m.object("apns").map(Fields.init) {
            if let payload = a.object("payload") { try APSRules.check(payload) }
            let options = a.object("fcm_options").map(Fields.init)
            content.apns = APNsOptions(
                headers: a.stringMap("headers") ?? [], payload: a.object("payload") ?? [], image: options?.string("image"))
        }
        if let w = m.object("webpush").map(Fields.init) {
            let options = w.object("fcm_options").map(Fields.init)
            if let link = options?.string("link"), !link.hasPrefix("https://") {
                throw V1Error.invalidArgument(field: "message.webpush.fcm_options.link")
            }
            try checkLabel(options?.string("analytics_label"), field: "message.webpush.fcm_options.analytics_label")
            let notification = w.object("notification").map(Fields.init)
            for key in WebNotificationURL.v1Keys {
                if let url = notification?.string(key), !WebNotificationURL.isAllowed(url) {
                    throw V1Error.invalidArgument(field: "message.webpush.notification.\(key)")
                }
            }
            content.webpush = WebpushOptions(
                headers: w.stringMap("headers") ?? [], data: w.stringMap("data"), notification: w.object("notification"),
                link: options?.string("link"))
        }
        try checkLabel(m.object("fcm_options").map(Fields.init)?.string("analytics_label"), field: "message.fcm_options.analytics_label")
        return SendRequest(target: target, content: content, validateOnly: fields.bool("validate_only") ?? false, api: .v1)
    }

    private static func target(_ m: Fields) throws(V1Error) -> MessageTarget {
        if let token = m.string("token") { return .token(token) }
        if let fid = m.string("fid") { return .fid(fid) }
        if var topic = m.string("topic") {
            if topic.hasPrefix("/topics/") { topic.removeFirst("/topics/".count) }
            guard IdentifierShape.isValidTopicName(topic) else { throw V1Error.invalidArgument(field: "message.topic") }
            return .topic(topic)
        }
        if let condition = m.string("condition") {
            do {
                return .condition(try TopicCondition.parse(condition, limits: .v1))
            } catch {
                throw V1Error.invalidArgument(field: "message.condition")
            }
        }
        throw V1Error(
            status: 400, statusName: "INVALID_ARGUMENT", message: "Recipient of the message is not set.",
            details: [.badRequest(field: "message", description: "Recipient of the message is not set."), .fcmError("INVALID_ARGUMENT")]
        )
    }

    private static func android(_ a: Fields) throws(V1Error) -> AndroidOptions {
        var options = try androidCommon(a, field: "message.android")
        if let priority = a.string("priority") { options.priority = priority == "HIGH" ? .high : .normal }
        if let n = a.object("notification") { options.notification = try androidNotification(n, field: "message.android.notification") }
        return options
    }

    /// What `android` and `android_v2` share: collapse key, TTL, package, data and analytics label,
    /// checked under `field`.
    static func androidCommon(_ a: Fields, field: String) throws(V1Error) -> AndroidOptions {
        var options = AndroidOptions(
            collapseKey: a.string("collapse_key"), restrictedPackageName: a.string("restricted_package_name"), data: a.stringMap("data"))
        if let key = options.collapseKey, key.utf8.count > EmulatorSettings.maxCollapseKeyBytes {
            throw V1Error.invalidArgument(field: field + ".collapse_key")
        }
        if let ttl = a.string("ttl") {
            // "The ttl will be rounded down to the nearest second" (discovery document).
            guard let millis = DurationParser.millis(ttl), millis >= 0, millis / 1000 <= EmulatorSettings.maxTTLSeconds else {
                throw V1Error.invalidArgument(field: field + ".ttl")
            }
            options.ttlSeconds = millis / 1000
        }
        try checkLabel(a.object("fcm_options").map(Fields.init)?.string("analytics_label"), field: field + ".fcm_options.analytics_label")
        return options
    }

    /// An Android notification's fields as the app reads them through `RemoteMessage.Notification`'s
    /// getters, once the checks FCM makes of them pass.
    static func androidNotification(_ n: [(String, JSONValue)], field: String) throws(V1Error) -> [(String, PayloadValue)] {
        let fields = Fields(n)
        if let color = fields.string("color"), !isHexColor(color, alpha: false) {
            throw V1Error.invalidArgument(field: field + ".color")
        }
        if fields.value("body_loc_args") != nil, fields.string("body_loc_key") == nil {
            throw V1Error.invalidArgument(field: field + ".body_loc_key")
        }
        if fields.value("title_loc_args") != nil, fields.string("title_loc_key") == nil {
            throw V1Error.invalidArgument(field: field + ".title_loc_key")
        }
        return n.map { key, value in (key == "image" ? "imageUrl" : ProtoNames.camel(key), value) }
    }

    private static func isHexColor(_ text: String, alpha: Bool) -> Bool {
        let digits = text.dropFirst()
        return text.hasPrefix("#") && (digits.count == 6 || (alpha && digits.count == 8)) && digits.allSatisfy(\.isHexDigit)
    }

    /// Analytics labels match `^[a-zA-Z0-9-_.~%]{1,50}$`.
    /// The field's name is spelled only for an error: built on every send, it was a new string each.
    static func checkLabel(_ label: String?, field: @autoclosure () -> String) throws(V1Error) {
        guard let label else { return }
        guard label.utf8.count <= 50, IdentifierShape.isValidTopicName(label) else { throw V1Error.invalidArgument(field: field()) }
    }
}

/// Read access to normalised (snake_case) fields.
struct Fields {
    let pairs: [(String, JSONValue)]

    init(_ pairs: [(String, JSONValue)]) { self.pairs = pairs }

    /// By index: a `for` over the pairs copied each one out, retaining its name and value.
    func value(_ key: String) -> JSONValue? {
        for i in pairs.indices where pairs[i].0.equalsLengthFirst(key) { return pairs[i].1 }
        return nil
    }
    func string(_ key: String) -> String? { value(key)?.stringValue }
    func bool(_ key: String) -> Bool? { value(key)?.boolValue }
    func object(_ key: String) -> [(String, JSONValue)]? { value(key)?.objectValue }

    /// Sized once: `compactMap` grew its array a step at a time, a new buffer each step.
    func stringMap(_ key: String) -> StringPairs? {
        guard let object = object(key) else { return nil }
        var pairs = StringPairs()
        pairs.reserveCapacity(object.count)
        for i in object.indices { if let text = object[i].1.stringValue { pairs.append((object[i].0, text)) } }
        return pairs
    }
}
