// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

/// Each device's own outcomes (docs/control-api.md, "Outcomes"): what became of the messages
/// meant for it, kept when the event log has dropped their events.
@Suite("Per-device outcomes")
struct DeviceOutcomeTests {
    func outcomes(_ w: Harness, _ d: DeviceInfo) throws -> DeviceOutcomeReport {
        try w.emu.outcomes(String(d.id), projectId: w.project)
    }

    @Test func aTTLZeroSendToAnOfflineDeviceIsToldAfterTheLogDroppedItsEvents() throws {
        let w = Harness { $0.maxEvents = 4 }
        let offline = try w.device(state: .offline, name: "pixel")
        let sent = try w.sendData(offline, ttl: 0)
        // Other traffic pushes the discard out of the log.
        let busy = try w.device()
        for _ in 0..<5 { try w.sendData(busy) }
        #expect(try w.events(offline, .discarded).isEmpty)
        let report = try outcomes(w, offline)
        #expect(report.story == "discarded: TTL 0 while the device was offline")
        #expect(report.outcomes.map(\.kind) == [.discarded, .accepted])
        #expect(report.outcomes.allSatisfy { $0.messageId == sent.messageId })
        #expect(report.outcomes.first?.reason == "ttl-zero")
        #expect(report.outcomes.last?.summary == "accepted (v1): sent to its token")
        // By name and by token too, as the other device routes take it.
        #expect(try w.emu.outcomes("pixel", projectId: w.project).outcomes.count == 2)
        #expect(try w.emu.outcomes(offline.token, projectId: w.project).outcomes.count == 2)
    }

    @Test func aDeviceKeepsItsLastSixteenNewestFirst() throws {
        let w = Harness()
        let d = try w.device()
        var last: SendOutcome?
        for _ in 0..<20 { last = try w.sendData(d) }
        let report = try outcomes(w, d)
        #expect(report.outcomes.count == 16)
        #expect(report.outcomes.first?.kind == .delivered && report.outcomes.first?.messageId == last?.messageId)
        #expect(report.story == "delivered: handed to the app")
        #expect(zip(report.outcomes, report.outcomes.dropFirst()).allSatisfy { $0.kind != $1.kind })
        // What docs/control-api.md says a full ring costs: 16 slots of 64 bytes.
        #expect(MemoryLayout<Outcome>.stride <= 64, "\(MemoryLayout<Outcome>.stride)")
    }

    /// A fan-out reaches every subscriber, so how many devices keep outcomes is capped, and a
    /// device past the cap is told so rather than "nothing was sent".
    @Test func pastMaxOutcomeDevicesADeviceWithNoneGetsNoneAndIsToldWhy() throws {
        let w = Harness { $0.maxOutcomeDevices = 2 }
        let first = try w.device()
        let second = try w.device()
        let third = try w.device()
        for d in [first, second, third] { try w.sendData(d) }
        #expect(try outcomes(w, first).outcomes.count == 2)
        #expect(try outcomes(w, second).outcomes.count == 2)
        let capped = try outcomes(w, third)
        #expect(capped.outcomes.isEmpty)
        #expect(capped.story.contains("maxOutcomeDevices"))
        // A device that has a ring keeps filling it.
        try w.sendData(first)
        #expect(try outcomes(w, first).outcomes.count == 4)
    }

    @Test func heldCollapsedExpiredAndDeliveredAreEachTold() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        let first = try w.sendData(d, collapseKey: "score")
        let second = try w.sendData(d, collapseKey: "score")
        try w.sendData(d, ttl: 60)
        var report = try outcomes(w, d)
        #expect(report.story == "held: device offline, 2 stored")
        let collapsed = report.outcomes.first { $0.kind == .collapsed }
        #expect(collapsed?.messageId == first.messageId && collapsed?.reason == "score")
        #expect(collapsed?.summary == "collapsed: replaced by the newer message \(second.messageId) with collapse key 'score'")
        try w.advance(seconds: 61)
        report = try outcomes(w, d)
        #expect(report.outcomes.first?.kind == .expired && report.story == "expired: its TTL ran out while it was stored")
        try w.setState(d, .foreground)
        report = try outcomes(w, d)
        #expect(report.outcomes.first?.kind == .delivered && report.outcomes.first?.messageId == second.messageId)
        #expect(report.device.storedCount == 0)
    }

    @Test func evictionAndTheStoredMessageCapAreTold() throws {
        let w = Harness { $0.maxStoredMessages = 2 }
        let d = try w.device(state: .offline)
        for key in ["a", "b", "c", "d", "e"] { try w.sendData(d, collapseKey: key) }
        let evicted = try outcomes(w, d).outcomes.first { $0.kind == .evicted }
        #expect(evicted?.reason != nil && evicted?.summary.hasPrefix("evicted: the device held as many collapse keys as it may") == true)
        for _ in 0..<3 { try w.sendData(d) }
        let overflow = try outcomes(w, d).outcomes.first { $0.kind == .discarded }
        #expect(overflow?.reason == "overflow")
        #expect(overflow?.summary == "discarded: more stored messages than the limit (2); all were dropped and the app is told onDeletedMessages")
    }

    @Test func aTopicSendIsAcceptedForEachRecipient() throws {
        let w = Harness()
        let a = try w.device(topics: ["news"])
        let b = try w.device(.ios, state: .background, topics: ["news"])
        _ = try w.emu.send(SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .legacy), from: w.project)
        #expect(try outcomes(w, a).outcomes.last?.summary == "accepted (legacy): via topic 'news'")
        let held = try outcomes(w, b)
        #expect(held.outcomes.map(\.kind) == [.stored, .accepted])
        #expect(held.story == "held: iOS holds data messages until the app is in the foreground, 1 stored")
    }

    @Test func aRefusalThatNamedTheTokenIsToldAndFoundByTheToken() throws {
        let w = Harness()
        let d = try w.device()
        w.emu.recordRefusals([
            Refusal(
                api: "v1", project: w.project, status: 400, code: "INVALID_ARGUMENT", target: d.token,
                detail: "message.data.from is reserved")
        ])
        let report = try outcomes(w, d)
        #expect(report.story == "refused: 400 INVALID_ARGUMENT message.data.from is reserved")
        #expect(report.outcomes.first?.status == 400 && report.outcomes.first?.code == "INVALID_ARGUMENT")
        // The event log's token filter finds the refusal, which names no device.
        #expect(try w.emu.events(EventQuery(token: d.token, kinds: [.refused])).count == 1)
        // A token no device ever held still finds the refusals that named it.
        w.emu.recordRefusals([Refusal(api: "v1", status: 401, code: "UNAUTHENTICATED", target: "never-held", detail: "no credentials")])
        #expect(try w.emu.events(EventQuery(token: "never-held")).map(\.kind) == [.refused])
    }

    @Test func aDeviceNothingWasSentToHasNoOutcomes() throws {
        let w = Harness()
        let d = try w.device()
        let report = try outcomes(w, d)
        #expect(report.outcomes.isEmpty && report.story == "Nothing was sent to it yet.")
        #expect(throws: FCMError.self) { try w.emu.outcomes("nobody", projectId: w.project) }
    }
}
