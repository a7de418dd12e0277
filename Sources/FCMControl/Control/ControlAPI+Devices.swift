// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport
import FCMXMPP

extension ControlAPI {
    static let deviceFields: Set<String> = [
        "platform", "appId", "name", "token", "fid", "state", "senders", "topics", "count", "applicationServerKey", "clientSdk",
    ]
    /// Devices made by one `POST …/devices` with `count`.
    static let maxDevicesPerCall = 10_000
    /// Topic names one device list or creation answer repeats at most: a device may hold 2000
    /// names of 900 bytes, so 1000 of them made a 1.8 GB answer.
    static let maxAnswerTopicBytes = 8 << 20
    /// The topic names one `POST …/devices` may subscribe, summed over its devices: each device's
    /// names are checked and hashed on the event loop that serves the call, so the work one call
    /// asks for is bounded (a thousand devices with a dozen topics each is well under 1 MiB).
    static let maxTopicBytesPerCall = 32 << 20

    func registerDevices(into router: inout Router) {
        let base = Self.prefix + "/projects/{project}/devices"
        router.add(
            "GET", base,
            handle { request, params throws(FCMError) in
                let offset = Int(request.queryValue("offset") ?? "0") ?? -1
                let limit = Int(request.queryValue("limit") ?? "1000") ?? -1
                guard offset >= 0, (1...100_000).contains(limit) else {
                    throw FCMError(.invalidArgument, "offset must be ≥ 0 and limit 1–100000", field: "limit")
                }
                // `q`, `platform` and `state` search the list on the server (the dashboard's search box).
                let (total, page) = try emulator.devices(
                    projectId: try params.require("project"), matching: try Self.deviceQuery(request), offset: offset, limit: limit,
                    maxTopicBytes: Self.maxAnswerTopicBytes)
                // A page may end early (by bytes): `nextOffset` is where the next one starts.
                let next = offset + page.count < total ? JSONValue.int(offset + page.count) : nil
                return ControlJSON.response(
                    .object(omittingNils: [
                        ("total", .int(total)), ("devices", .array(page.map(ControlJSON.device))), ("nextOffset", next),
                    ]))
            })
        router.add(
            "POST", base,
            handle { request, params throws(FCMError) in
                try createDevices(request, projectId: try params.require("project"))
            })
        router.add(
            "GET", base + "/{device}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(
                    ControlJSON.device(try emulator.device(try params.require("device"), projectId: try params.require("project"))))
            })
        router.add(
            "PATCH", base + "/{device}",
            handle { request, params throws(FCMError) in
                let body = try ControlBody(request, allowed: ["state", "senders"])
                let project = try params.require("project")
                // The body is read whole, and the core checks both fields before changing either.
                let state = try body.choice("state", DeviceState.self)
                let own = try emulator.project(project).number
                let senders = try body.strings("senders")?.filter { $0 != own }
                if let senders, !senders.allSatisfy(Project.isValidNumber) {
                    throw FCMError(.invalidArgument, "Sender ids are project numbers (decimal digits)", field: "senders")
                }
                let info = try emulator.updateDevice(try params.require("device"), projectId: project, state: state, extraSenders: senders)
                return ControlJSON.response(ControlJSON.device(info))
            })
        router.add(
            "DELETE", base + "/{device}",
            handle { _, params throws(FCMError) in
                try emulator.deleteDevice(try params.require("device"), projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "POST", base + "/{device}:uninstall",
            handle { _, params throws(FCMError) in
                ControlJSON.response(
                    ControlJSON.device(try emulator.uninstall(try params.require("device"), projectId: try params.require("project"))))
            })
        router.add(
            "POST", base + "/{device}:refreshToken",
            handle { request, params throws(FCMError) in
                let body = try ControlBody(request, allowed: ["token"])
                let info = try emulator.refreshToken(
                    try params.require("device"), projectId: try params.require("project"), newToken: try body.string("token"))
                return ControlJSON.response(ControlJSON.device(info))
            })
        router.add(
            "POST", base + "/{device}:upstream",
            handle { request, params throws(FCMError) in
                // A device sends to its app server over XMPP (upstream messages,
                // https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref).
                let body = try ControlBody(request, allowed: ["data", "messageId", "ttl"])
                var data: StringPairs = []
                if let object = body.value("data") {
                    guard let pairs = object.objectValue, pairs.allSatisfy({ $0.1.stringValue != nil }) else {
                        throw FCMError(.invalidArgument, "Field 'data' must be an object of strings", field: "data")
                    }
                    data = pairs.map { ($0.0, $0.1.stringValue ?? "") }
                }
                let ttl = try body.durationMillis("ttl").map { $0 / 1000 } ?? 86_400
                let item = try emulator.sendUpstream(
                    try params.require("device"), projectId: try params.require("project"), data: data,
                    messageId: try body.string("messageId"), ttlSeconds: ttl)
                return ControlJSON.response(status: 201, .object([("messageId", .string(item.messageId)), ("payload", item.json)]))
            })
        router.add(
            "PUT", base + "/{device}/topics/{topic}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(
                    ControlJSON.device(
                        try emulator.subscribe(
                            try params.require("device"), projectId: try params.require("project"), topic: try params.require("topic"))))
            })
        router.add(
            "DELETE", base + "/{device}/topics/{topic}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(
                    ControlJSON.device(
                        try emulator.unsubscribe(
                            try params.require("device"), projectId: try params.require("project"), topic: try params.require("topic"))))
            })
        router.add(
            "GET", base + "/{device}/inbox",
            handle { request, params throws(FCMError) in
                // `waitFor=N&timeout=` answers once the inbox holds N deliveries (ControlAPI+Live.swift).
                for (key, _) in request.query where !Self.waitParameters.contains(key) {
                    throw FCMError(.invalidArgument, "Unknown query parameter '\(key)'; expected waitFor or timeout", field: key)
                }
                let device = try params.require("device")
                let project = try params.require("project")
                let read = { @Sendable () throws(FCMError) -> (DeviceInfo, [Delivery]) in try emulator.inbox(device, projectId: project) }
                let answer = { @Sendable (inbox: (info: DeviceInfo, deliveries: [Delivery])) in
                    ControlJSON.response(
                        .object([
                            ("device", ControlJSON.device(inbox.info)),
                            (
                                "deliveries",
                                .array(
                                    inbox.deliveries.map {
                                        ControlJSON.delivery($0, platform: inbox.info.platform, clientSdk: inbox.info.clientSdk)
                                    })
                            ),
                        ]))
                }
                guard let wait = try waitRequest(request, limit: emulator.settings.maxInboxPerDevice) else { return answer(try read()) }
                let current = try read()
                return waiting(
                    wait, interest: EventInterest(device: current.0.id, projectId: project), current: current, count: { $0.1.count },
                    progress: { [emulator] () throws(FCMError) -> (count: Int, done: Bool) in
                        (try emulator.inboxCount(device, projectId: project), true)
                    }, read: read, answer: answer)
            })
        router.add(
            "DELETE", base + "/{device}/inbox",
            handle { _, params throws(FCMError) in
                try emulator.clearInbox(try params.require("device"), projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", base + "/{device}/events",
            handle { request, params throws(FCMError) in
                let id = try emulator.device(try params.require("device"), projectId: try params.require("project")).id
                return try events(request, projectId: try params.require("project"), device: id)
            })
    }

    private func createDevices(_ request: HTTPRequest, projectId: String) throws(FCMError) -> HTTPResponse {
        let body = try ControlBody(request, allowed: Self.deviceFields)
        guard let platform = try body.choice("platform", Platform.self) else {
            throw FCMError(.invalidArgument, "Field 'platform' is required: android, ios or web", field: "platform")
        }
        let ownNumber = try emulator.project(projectId).number
        var spec = DeviceSpec(
            platform: platform, appId: try body.string("appId") ?? DeviceSpec.defaultAppId(for: platform),
            name: try body.string("name"), token: try body.string("token"), fid: try body.string("fid"),
            state: try body.choice("state", DeviceState.self) ?? .foreground,
            extraSenders: (try body.strings("senders") ?? []).filter { $0 != ownNumber },
            topics: try body.strings("topics") ?? []
        )
        spec.clientSdk = try body.choice("clientSdk", ClientSDK.self) ?? .current
        if let key = try body.string("applicationServerKey") {
            // The VAPID public key `pushManager.subscribe` binds the subscription to (RFC 8292 §4).
            guard let bytes = Base64URLCodec.decode(key, maxBytes: 256) else {
                throw FCMError(.invalidArgument, "applicationServerKey must be base64url", field: "applicationServerKey")
            }
            spec.applicationServerKey = bytes
        }
        guard let count = try body.number("count") else {
            return ControlJSON.response(status: 201, ControlJSON.device(try emulator.createDevice(spec, projectId: projectId)))
        }
        guard count == count.rounded(), (1...Double(Self.maxDevicesPerCall)).contains(count) else {
            throw FCMError(.invalidArgument, "count must be a whole number from 1 to \(Self.maxDevicesPerCall)", field: "count")
        }
        guard spec.name == nil, spec.token == nil, spec.fid == nil else {
            throw FCMError(.invalidArgument, "name, token and fid name one device; leave them out with count", field: "count")
        }
        try emulator.checkRoomForDevices(Int(count))
        // Every device gets the same topics. Past the answer's budget they are listed once, at
        // the top, instead of in each device (which then has no `topics`).
        let topics = Array(Set(spec.topics)).sorted()
        let subscribed = Int(count) * topics.reduce(0) { $0 + $1.utf8.count }
        guard subscribed <= Self.maxTopicBytesPerCall else {
            throw FCMError(
                .invalidArgument,
                "count × topics names \(subscribed) bytes of topic subscriptions; one call makes at most 32 MiB of them: "
                    + "create the devices in smaller batches",
                field: "count")
        }
        let shared = Int(count) * topics.reduce(0) { $0 + $1.utf8.count + 8 } > Self.maxAnswerTopicBytes
        let device = { (info: DeviceInfo) in shared ? ControlJSON.device(info, topics: false) : ControlJSON.device(info) }
        // Validate once before creating any, so a bad field changes nothing.
        var created: [JSONValue] = [device(try emulator.createDevice(spec, projectId: projectId, topics: !shared))]
        spec.topics = spec.topics.filter(IdentifierShape.isValidTopicName)
        for _ in 1..<Int(count) { created.append(device(try emulator.createDevice(spec, projectId: projectId, topics: !shared))) }
        return ControlJSON.response(
            status: 201,
            .object(omittingNils: [("devices", .array(created)), ("topics", shared ? .array(topics.map(JSONValue.string)) : nil)]))
    }
}
