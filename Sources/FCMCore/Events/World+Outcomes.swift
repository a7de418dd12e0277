// SPDX-License-Identifier: Apache-2.0

/// Each device's own outcomes (`DeviceOutcomes`), noted where the events are logged: `World.log`
/// for what happened to a message on a device, the fan-outs and groups for the sends that reached
/// it, and `logRefusal` for a refused request that named its token or FID.
extension World {
    /// The outcome an event logged about a device makes, if it makes one. Called by `log` for
    /// every event with a device; every other kind returns at the first switch.
    mutating func noteOutcome(_ kind: Event.Kind, device id: DeviceID, message: Message?, related: Message?, detail: String?) {
        let outcomeKind: Outcome.Kind
        var extra = Outcome.Extra.none
        var reason = detail
        switch kind {
        case .accepted:
            // Sends to a token or FID log their device; fan-outs and groups note theirs in `noteAccepted`.
            if case .fid = message?.target { extra = .via(nil, .fid) } else { extra = .via(nil, .token) }
            reason = message?.api.rawValue
            outcomeKind = .accepted
        case .stored:
            extra = .count(devices[Int(id)]?.store?.items.count ?? 0)
            outcomeKind = .stored
        case .delivered: outcomeKind = .delivered
        case .collapsed, .evicted:
            if let related { extra = .newer(related.id) }
            outcomeKind = kind == .collapsed ? .collapsed : .evicted
        case .expired: outcomeKind = .expired
        case .discarded:
            if detail == "ttl-zero", let state = devices[Int(id)]?.state { extra = .state(state) }
            if detail == "overflow" { extra = .count(settings.maxStoredMessages) }
            outcomeKind = .discarded
        default: return
        }
        outcomes.append(limit: settings.maxOutcomeDevices, Outcome(time: now, kind: outcomeKind, messageId: message?.id, reason: reason, extra: extra), for: id)
    }

    /// A topic, condition or group send reaching one of its recipients (its `accepted` event, once
    /// per send, names no device).
    mutating func noteAccepted(_ message: Message, device id: DeviceID, group: Bool) {
        let extra: Outcome.Extra =
            switch message.target {
            case _ where group: .via(nil, .group)
            case .topic(let topic): .via(topic, .topic)
            case .condition(let condition): .via(condition.text, .condition)
            case .fid: .via(nil, .fid)
            case .token, .notificationKey: .via(nil, .group)
            }
        let outcome = Outcome(time: now, kind: .accepted, messageId: message.id, reason: message.api.rawValue, extra: extra)
        outcomes.append(limit: settings.maxOutcomeDevices, outcome, for: id)
    }

    /// A refused request whose target names a device's token (current or retired) or FID
    /// (`fid:…`, as `MessageTarget.description` writes it).
    mutating func noteRefusal(_ call: EventCall, detail: String?) {
        guard let target = call.target, let id = device(namedBy: target, project: call.project) else { return }
        outcomes.append(limit: settings.maxOutcomeDevices, Outcome(time: now, kind: .refused, messageId: nil, reason: detail, extra: .call(call)), for: id)
    }

    /// The device that holds or held `target`: a token, or `fid:` and an FID, looked for in the
    /// named project first.
    func device(namedBy target: String, project: String?) -> DeviceID? {
        if let id = deviceID(forToken: target) ?? retiredTokens[target]?.device { return id }
        guard target.hasPrefix("fid:") else { return nil }
        let fid = String(target.dropFirst(4))
        if let project, let index = projectIndexById[project], let id = deviceID(forFid: fid, projectIndex: index) { return id }
        return deviceID(forFid: fid, projectIndex: nil)
    }
}

/// A device and its outcomes, newest first (`GET …/devices/{device}/outcomes`, `fcm-emu why`).
package struct DeviceOutcomeReport: Sendable {
    package let device: DeviceInfo
    package let outcomes: [Outcome]
    /// Set when the device has none because `maxOutcomeDevices` devices already had a record: the
    /// cap, which the story names instead of "nothing was sent".
    package var cappedAt: Int?

    /// The newest outcome's summary, or why there is none.
    package var story: String {
        if let first = outcomes.first { return first.summary }
        guard let cappedAt else { return Self.nothingYet }
        return "Not recorded: outcomes are kept for \(cappedAt) devices at most, and as many had some already (raise maxOutcomeDevices)."
    }

    package static let nothingYet = "Nothing was sent to it yet."
}

extension Emulator {
    /// A device of a project (by id, name, token or FID) and its outcomes, newest first.
    package func outcomes(_ reference: String, projectId: String) throws(FCMError) -> DeviceOutcomeReport {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceOutcomeReport in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            let outcomes = w.outcomes.newestFirst(device.id)
            var report = DeviceOutcomeReport(device: w.info(device), outcomes: outcomes)
            if outcomes.isEmpty, w.outcomes.count >= w.settings.maxOutcomeDevices { report.cappedAt = w.settings.maxOutcomeDevices }
            return report
        }
    }
}
