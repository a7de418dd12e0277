// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMCoreJSON
import FCMJSON

/// `world.jsonl`: the world's small parts, one `{"type": …}` line each. `settings` and `counters`
/// come first; then `faults`, `rateWindow`, `ccs` and `fanOut` lines.
enum WorldLines {
    static func write(_ image: WorldImage, refs: inout MessageRefs, _ w: inout LineWriter) throws {
        try w.line(settings(image.settings))
        let c = image.counters
        try w.line(
            .object([
                ("type", .string("counters")), ("randomState", .string(String(c.randomState))),
                ("microCounter", .string(String(c.microCounter))), ("nextStoreSequence", .string(String(c.nextStoreSequence))),
                ("nextTimerSequence", .string(String(c.nextTimerSequence))), ("nextEventSequence", .int(c.nextEventSequence)),
                ("nextCCSConnection", .int(c.nextCCSConnection)),
            ]))
        let faults = image.faults
        try w.line(
            .object([
                ("type", .string("faults")), ("rules", .array(faults.rules.map(FaultRuleCodec.encode))),
                ("matched", counts(faults.matched)), ("fired", counts(faults.fired)),
            ]))
        for r in image.rateWindows {
            try w.line(
                .object([
                    ("type", .string("rateWindow")), ("key", .string(r.key)), ("start", .int(r.start.millis)), ("count", .int(r.count)),
                ]))
        }
        for q in image.ccsQueues {
            try w.line(
                .object([
                    ("type", .string("ccs")), ("project", .string(q.projectId)), ("drainRequests", .int(q.drainRequests)),
                    ("items", .array(q.items.map(ccsItem))),
                ]))
        }
        let receivers = image.receivers
        if !receivers.isEmpty { try w.line(receiversLine(receivers)) }
        for f in image.fanOuts {
            try w.line(
                .object(omittingNils: [
                    ("type", .string("fanOut")), ("message", .int(refs.ref(f.message))), ("restricted", f.restricted.map(JSONValue.string)),
                    ("next", .int(f.next)), ("recipients", .array(f.recipients.map(JSONValue.int))),
                ]))
        }
    }

    // MARK: - Real receivers

    /// One line for the receivers' registrations (docs/snapshots.md): 64-bit ids and tokens as
    /// decimal strings, keys as base64url.
    static func receiversLine(_ r: SnapshotRecord.Receivers) -> JSONValue {
        .object([
            ("type", .string("receivers")), ("nextPersistentId", .string(String(r.nextPersistentId))),
            (
                "checkins",
                .array(
                    r.checkins.map {
                        .object([
                            ("androidId", .string(String($0.androidId))), ("securityToken", .string(String($0.securityToken))),
                            ("registrations", .array($0.registrations.map(JSONValue.string))),
                        ])
                    })
            ),
            (
                "registrations",
                .array(
                    r.registrations.map {
                        .object(omittingNils: [
                            ("gcmToken", .string($0.gcmToken)), ("androidId", .string(String($0.androidId))), ("app", .string($0.app)),
                            ("subtype", .string($0.subtype)), ("sender", .string($0.sender)), ("device", $0.device.map { .int(Int($0)) }),
                        ])
                    })
            ),
            (
                "installations",
                .array(
                    r.installations.map {
                        .object([
                            ("project", .int(Int($0.projectIndex))), ("fid", .string($0.fid)), ("appId", .string($0.appId)),
                            ("refreshToken", .string($0.refreshToken)), ("authToken", .string($0.authToken)),
                            ("authExpiresAt", .int($0.authExpiresAt.millis)), ("devices", .array($0.devices.map { .int(Int($0)) })),
                        ])
                    })
            ),
            (
                "links",
                .array(
                    r.links.map {
                        let l = $0.link
                        return .object(omittingNils: [
                            ("device", .int(Int($0.device))), ("androidId", .string(String(l.androidId))), ("gcmToken", .string(l.gcmToken)),
                            ("app", .string(l.category)), ("subtype", .string(l.subtype)), ("sender", .string(l.sender)),
                            ("p256dh", .string(Base64URLCodec.encode(l.p256dh))), ("auth", .string(Base64URLCodec.encode(l.auth))),
                            ("applicationServerKey", l.applicationServerKey.map { .string(Base64URLCodec.encode($0)) }),
                        ])
                    })
            ),
        ])
    }

    static func readReceivers(_ f: inout JSONFields) throws(SnapshotProblem) -> SnapshotRecord.Receivers {
        func id(_ g: inout JSONFields, _ key: String) throws(SnapshotProblem) -> UInt64 {
            guard let v = UInt64(try g.string(key)) else { throw SnapshotProblem("receivers.\(key) must be a decimal 64-bit number") }
            return v
        }
        func device(_ v: JSONValue) throws(SnapshotProblem) -> DeviceID {
            guard let d = v.int64Value.flatMap({ DeviceID(exactly: $0) }) else { throw SnapshotProblem("receivers: a device must be a device id") }
            return d
        }
        func key(_ g: inout JSONFields, _ name: String, count: Int) throws(SnapshotProblem) -> [UInt8] {
            guard let bytes = Base64URLCodec.decode(try g.string(name), maxBytes: 256), bytes.count == count else {
                throw SnapshotProblem("receivers.links.\(name) must be \(count) bytes, base64url")
            }
            return bytes
        }
        var r = SnapshotRecord.Receivers()
        guard let next = UInt64(try f.string("nextPersistentId")) else { throw SnapshotProblem("receivers.nextPersistentId must be a number") }
        r.nextPersistentId = next
        for c in try f.array("checkins") {
            var g = try JSONFields(c, "receivers.checkins[]")
            let androidId = try id(&g, "androidId")
            let token = try id(&g, "securityToken")
            let registrations = try g.array("registrations").map { v throws(SnapshotProblem) -> String in
                guard let s = v.stringValue else { throw SnapshotProblem("receivers.checkins[].registrations must be strings") }
                return s
            }
            try g.finish()
            r.checkins.append(.init(androidId: androidId, securityToken: token, registrations: registrations))
        }
        for v in try f.array("registrations") {
            var g = try JSONFields(v, "receivers.registrations[]")
            let registration = SnapshotRecord.Receivers.Registration(
                gcmToken: try g.string("gcmToken"), androidId: try id(&g, "androidId"), app: try g.string("app"),
                subtype: try g.string("subtype"), sender: try g.string("sender"), device: try g.optional("device").map(device))
            try g.finish()
            r.registrations.append(registration)
        }
        for v in try f.array("installations") {
            var g = try JSONFields(v, "receivers.installations[]")
            let installation = SnapshotRecord.Receivers.Installation(
                projectIndex: try g.number("project", as: Int32.self), fid: try g.string("fid"), appId: try g.string("appId"),
                refreshToken: try g.string("refreshToken"), authToken: try g.string("authToken"), authExpiresAt: try g.instant("authExpiresAt"),
                devices: try g.array("devices").map(device))
            try g.finish()
            r.installations.append(installation)
        }
        for v in try f.array("links") {
            var g = try JSONFields(v, "receivers.links[]")
            let owner = try device(try g.required("device"))
            let link = ReceiverLink(
                androidId: try id(&g, "androidId"), gcmToken: try g.string("gcmToken"), category: try g.string("app"),
                subtype: try g.string("subtype"), sender: try g.string("sender"), p256dh: try key(&g, "p256dh", count: 65),
                auth: try key(&g, "auth", count: 16),
                applicationServerKey: try g.optional("applicationServerKey") == nil ? nil : try key(&g, "applicationServerKey", count: 65))
            try g.finish()
            r.links.append(.init(device: owner, link: link))
        }
        return r
    }

    private static func counts(_ map: [String: Int]) -> JSONValue {
        .object(map.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
    }

    // MARK: - Settings

    static func settings(_ s: EmulatorSettings) -> JSONValue {
        func limit(_ l: EmulatorSettings.RateLimit?) -> JSONValue {
            l.map { .object([("messages", .int($0.messages)), ("windowSeconds", .int($0.windowSeconds))]) } ?? .null
        }
        return .object([
            ("type", .string("settings")), ("seed", .string(String(s.seed))),
            ("dozeMaintenanceIntervalSeconds", .int(s.dozeMaintenanceIntervalSeconds)), ("randomEviction", .bool(s.randomEviction)),
            ("shuffleDelivery", .bool(s.shuffleDelivery)), ("tokenRefreshGraceSeconds", .int(s.tokenRefreshGraceSeconds)),
            ("highPriorityLatencyMillis", .int(s.highPriorityLatencyMillis)),
            ("normalPriorityLatencyMillis", .int(s.normalPriorityLatencyMillis)),
            ("inactiveAfterSeconds", .int(s.inactiveAfterSeconds)), ("deletedSignalWindowSeconds", .int(s.deletedSignalWindowSeconds)),
            ("maxStoredMessages", .int(s.maxStoredMessages)), ("maxCollapseKeys", .int(s.maxCollapseKeys)),
            ("maxTopicsPerInstance", .int(s.maxTopicsPerInstance)), ("maxGroupMembers", .int(s.maxGroupMembers)),
            ("maxGroupsPerProject", .int(s.maxGroupsPerProject)), ("maxSendersPerInstance", .int(s.maxSendersPerInstance)),
            ("deviceRateLimit", limit(s.deviceRateLimit)), ("topicRateLimit", limit(s.topicRateLimit)), ("maxEvents", .int(s.maxEvents)),
            ("maxEventBytes", .int(s.maxEventBytes)), ("maxInboxPerDevice", .int(s.maxInboxPerDevice)),
            ("maxInboxBytes", .int(s.maxInboxBytes)),
            ("maxProjects", .int(s.maxProjects)), ("maxDevices", .int(s.maxDevices)), ("maxFaultRules", .int(s.maxFaultRules)),
            ("quotas", .string(s.fcmQuotas ? "fcm" : "off")), ("quotaMessagesPerMinute", .int(s.quotaMessagesPerMinute)),
            ("quotaSubscriptionsPerSecond", .int(s.quotaSubscriptionsPerSecond)), ("quotaFanOutsInFlight", .int(s.quotaFanOutsInFlight)),
            ("staleTokenDays", .int(s.staleTokenDays)),
            ("deprioritizeAfter", .int(s.deprioritizeAfter)),
        ])
    }

    static func readSettings(_ json: JSONValue) throws(SnapshotProblem) -> EmulatorSettings {
        var f = try JSONFields(json, "settings")
        guard try f.string("type") == "settings" else { throw SnapshotProblem("the first line must be the settings") }
        var s = EmulatorSettings()
        s.seed = try f.uint64("seed")
        s.dozeMaintenanceIntervalSeconds = try f.int("dozeMaintenanceIntervalSeconds")
        s.randomEviction = try f.bool("randomEviction")
        s.shuffleDelivery = try f.bool("shuffleDelivery")
        s.tokenRefreshGraceSeconds = try f.int("tokenRefreshGraceSeconds")
        s.highPriorityLatencyMillis = try f.int("highPriorityLatencyMillis")
        s.normalPriorityLatencyMillis = try f.int("normalPriorityLatencyMillis")
        s.inactiveAfterSeconds = try f.int("inactiveAfterSeconds")
        s.deletedSignalWindowSeconds = try f.int("deletedSignalWindowSeconds")
        s.maxStoredMessages = try f.number("maxStoredMessages", as: Int.self)
        s.maxCollapseKeys = try f.number("maxCollapseKeys", as: Int.self)
        s.maxTopicsPerInstance = try f.number("maxTopicsPerInstance", as: Int.self)
        s.maxGroupMembers = try f.number("maxGroupMembers", as: Int.self)
        s.maxGroupsPerProject = try f.number("maxGroupsPerProject", as: Int.self)
        s.maxSendersPerInstance = try f.number("maxSendersPerInstance", as: Int.self)
        s.deviceRateLimit = try limit(&f, "deviceRateLimit")
        s.topicRateLimit = try limit(&f, "topicRateLimit")
        s.maxEvents = try f.number("maxEvents", as: Int.self)
        // Newer than the format's first version: a snapshot without it keeps the default.
        try optionalCount(&f, "maxEventBytes", into: &s.maxEventBytes)
        s.maxInboxPerDevice = try f.number("maxInboxPerDevice", as: Int.self)
        // Newer still: a snapshot without it keeps the default.
        try optionalCount(&f, "maxInboxBytes", into: &s.maxInboxBytes)
        // The caps on what a client can make, newer still: without them a snapshot keeps the defaults.
        try optionalCount(&f, "maxProjects", into: &s.maxProjects)
        try optionalCount(&f, "maxDevices", into: &s.maxDevices)
        try optionalCount(&f, "maxFaultRules", into: &s.maxFaultRules)
        // Quotas and token expiry, at their defaults when absent.
        if let quotas = try f.optionalString("quotas") {
            guard quotas == "fcm" || quotas == "off" else { throw SnapshotProblem("settings.quotas must be fcm or off") }
            s.fcmQuotas = quotas == "fcm"
        }
        try optionalCount(&f, "quotaMessagesPerMinute", into: &s.quotaMessagesPerMinute)
        try optionalCount(&f, "quotaSubscriptionsPerSecond", into: &s.quotaSubscriptionsPerSecond)
        try optionalCount(&f, "quotaFanOutsInFlight", into: &s.quotaFanOutsInFlight)
        try optionalCount(&f, "staleTokenDays", into: &s.staleTokenDays)
        // Newer too: a snapshot without it keeps the default.
        if let n = try f.optionalInt("deprioritizeAfter") {
            guard let value = Int(exactly: n) else { throw SnapshotProblem("settings.deprioritizeAfter is out of range") }
            s.deprioritizeAfter = value
        }
        try f.finish()
        // The ranges `--set` takes, so a snapshot plants no value a later request overflows on.
        do throws(FCMError) {
            try s.checkRanges()
        } catch {
            throw SnapshotProblem("settings: \(error.message)")
        }
        return s
    }

    /// A setting newer than the format's first version, kept at its default when absent.
    private static func optionalCount(_ f: inout JSONFields, _ key: String, into value: inout Int) throws(SnapshotProblem) {
        guard let n = try f.optionalInt(key) else { return }
        guard let exact = Int(exactly: n) else { throw SnapshotProblem("settings.\(key) is out of range") }
        value = exact
    }

    private static func limit(_ f: inout JSONFields, _ key: String) throws(SnapshotProblem) -> EmulatorSettings.RateLimit? {
        guard let value = f.optional(key) else { return nil }
        var g = try JSONFields(value, "settings.\(key)")
        let limit = EmulatorSettings.RateLimit(messages: try g.number("messages", as: Int.self), windowSeconds: try g.int("windowSeconds"))
        try g.finish()
        return limit
    }

    static func readCounters(_ json: JSONValue) throws(SnapshotProblem) -> SnapshotRecord.Counters {
        var f = try JSONFields(json, "counters")
        guard try f.string("type") == "counters" else { throw SnapshotProblem("the second line must be the counters") }
        let c = SnapshotRecord.Counters(
            randomState: try f.uint64("randomState"), microCounter: try f.uint64("microCounter"),
            nextStoreSequence: try f.uint64("nextStoreSequence"), nextTimerSequence: try f.uint64("nextTimerSequence"),
            nextEventSequence: try f.number("nextEventSequence", as: Int.self),
            nextCCSConnection: try f.number("nextCCSConnection", as: Int.self))
        try f.finish()
        try c.check()
        return c
    }

    // MARK: - The other lines

    /// A line after the first two.
    static func read(_ json: JSONValue, messages: [Message], builder: inout WorldBuilder) throws(SnapshotProblem) {
        var f = try JSONFields(json, "world line")
        switch try f.string("type") {
        case "faults":
            var rules: [FaultRule] = []
            for (i, r) in try f.array("rules").enumerated() {
                do throws(FCMError) {
                    rules.append(try FaultRuleCodec.decode(r, defaultId: "rule-\(i)"))
                } catch {
                    throw SnapshotProblem("faults.rules[\(i)]: \(error.message)")
                }
            }
            try builder.setFaults(
                SnapshotRecord.Faults(rules: rules, matched: try counts(f.optional("matched")), fired: try counts(f.optional("fired"))))
        case "receivers":
            let receivers = try readReceivers(&f)
            try builder.setReceivers(receivers)
        case "rateWindow":
            try builder.addRateWindow(
                SnapshotRecord.RateWindow(
                    key: try f.string("key"), start: try f.instant("start"), count: try f.number("count", as: Int.self)))
        case "ccs":
            var items: [CCSItem] = []
            for item in try f.array("items") { items.append(try readCCSItem(item)) }
            try builder.addCCSQueue(
                SnapshotRecord.CCSQueue(
                    projectId: try f.string("project"), items: items, drainRequests: try f.number("drainRequests", as: Int.self)))
        case "fanOut":
            guard let message = try messageRef(f.int("message"), messages) else { throw SnapshotProblem("fanOut lacks its message") }
            var recipients: [DeviceID] = []
            for r in try f.array("recipients") {
                guard let id = r.int64Value.flatMap({ DeviceID(exactly: $0) }) else {
                    throw SnapshotProblem("fanOut.recipients must be device ids")
                }
                recipients.append(id)
            }
            try builder.addFanOut(
                SnapshotRecord.FanOut(
                    message: message, recipients: recipients, restricted: try f.optionalString("restricted"),
                    next: try f.number("next", as: Int.self)))
        case let other:
            throw SnapshotProblem("world line of unknown type \"\(other)\"")
        }
        try f.finish()
    }

    private static func counts(_ json: JSONValue?) throws(SnapshotProblem) -> [String: Int] {
        guard let json else { return [:] }
        guard let pairs = json.objectValue else { throw SnapshotProblem("fault counts must be an object") }
        var out: [String: Int] = [:]
        for (key, value) in pairs {
            guard let n = value.int64Value.flatMap({ Int(exactly: $0) }) else { throw SnapshotProblem("fault counts must be numbers") }
            out[key] = n
        }
        return out
    }

    // MARK: - CCS items

    private static func ccsItem(_ item: CCSItem) -> JSONValue {
        switch item.body {
        case .upstream(let u):
            return .object([
                (
                    "upstream",
                    .object([
                        ("messageId", .string(u.messageId)), ("from", .string(u.from)), ("category", .string(u.category)),
                        ("data", pairsJSON(u.data)), ("ttlSeconds", .int(u.ttlSeconds)),
                    ])
                ),
                ("expiresAt", .int(item.expiresAt.millis)),
            ])
        case .receipt(let r):
            return .object([
                (
                    "receipt",
                    .object([
                        ("originalMessageId", .string(r.originalMessageId)), ("deviceToken", .string(r.deviceToken)),
                        ("category", .string(r.category)), ("sentAt", .int(r.sentAt.millis)),
                    ])
                ),
                ("expiresAt", .int(item.expiresAt.millis)),
            ])
        }
    }

    private static func ttl(_ seconds: Int64) throws(SnapshotProblem) -> Int64 {
        guard EmulatorSettings.durationSecondsRange.contains(seconds) else { throw SnapshotProblem("ccs upstream ttlSeconds is out of range") }
        return seconds
    }

    private static func readCCSItem(_ json: JSONValue) throws(SnapshotProblem) -> CCSItem {
        var f = try JSONFields(json, "ccs item")
        let expiresAt = try f.instant("expiresAt")
        let body: CCSItem.Body
        if let u = f.optional("upstream") {
            var g = try JSONFields(u, "ccs upstream")
            body = .upstream(
                UpstreamMessage(
                    messageId: try g.string("messageId"), from: try g.string("from"), category: try g.string("category"),
                    data: try g.pairs("data") ?? [], ttlSeconds: try ttl(g.int("ttlSeconds"))))
            try g.finish()
        } else if let r = f.optional("receipt") {
            var g = try JSONFields(r, "ccs receipt")
            body = .receipt(
                DeliveryReceipt(
                    originalMessageId: try g.string("originalMessageId"), deviceToken: try g.string("deviceToken"),
                    category: try g.string("category"), sentAt: try g.instant("sentAt")))
            try g.finish()
        } else {
            throw SnapshotProblem("a CCS item is an upstream message or a receipt")
        }
        try f.finish()
        return CCSItem(body, expiresAt: expiresAt)
    }
}
