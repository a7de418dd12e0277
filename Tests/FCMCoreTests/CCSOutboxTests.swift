// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("CCS outbox: upstream messages and receipts for XMPP connections")
struct CCSOutboxTests {
    @Test func upstreamWaitsForAConnectionAndIsSentAgainUntilAcked() throws {
        let w = Harness()
        let d = try w.device(name: "pixel")
        try w.emu.sendUpstream("pixel", projectId: w.project, data: [("hello", "world")], messageId: "u-1")
        let first = try w.emu.ccsConnect(sender: DemoProject.number).connection
        let sent = w.emu.ccsTake(first)
        #expect(sent.map(\.messageId) == ["u-1"])
        #expect(
            sent.first?.body
                == .upstream(
                    UpstreamMessage(
                        messageId: "u-1", from: d.token, category: "com.example.app", data: [("hello", "world")], ttlSeconds: 86_400)))
        #expect(w.emu.ccsTake(first).isEmpty)
        w.emu.ccsDisconnect(first)  // closed without acking
        let second = try w.emu.ccsConnect(sender: DemoProject.id).connection
        #expect(w.emu.ccsTake(second).map(\.messageId) == ["u-1"])
        #expect(w.emu.ccsAck(first, messageId: "u-1") == false)  // acks count only where delivered
        #expect(w.emu.ccsAck(second, messageId: "u-1"))
        w.emu.ccsDisconnect(second)
        #expect(w.emu.ccsTake(try w.emu.ccsConnect(sender: DemoProject.id).connection).isEmpty)
    }

    @Test func unsentUpstreamExpires() throws {
        let w = Harness()
        _ = try w.device(name: "pixel")
        try w.emu.sendUpstream("pixel", projectId: w.project, data: [], messageId: "u-1", ttlSeconds: 60)
        try w.advance(seconds: 60)
        #expect(w.emu.ccsTake(try w.emu.ccsConnect(sender: DemoProject.id).connection).isEmpty)
        #expect(try w.emu.events(EventQuery(kinds: [.ccsExpired])).count == 1)
    }

    @Test func atMostAHundredInFlightPerConnection() throws {
        let w = Harness()
        _ = try w.device(name: "pixel")
        for i in 0..<150 { try w.emu.sendUpstream("pixel", projectId: w.project, data: [], messageId: "u-\(i)") }
        let connection = try w.emu.ccsConnect(sender: DemoProject.id).connection
        #expect(w.emu.ccsTake(connection).count == 100)
        #expect(w.emu.ccsAck(connection, messageId: "u-0"))
        #expect(w.emu.ccsTake(connection).map(\.messageId) == ["u-100"])
    }

    @Test func receiptsForXMPPMessagesThatAskForThemExceptOnIOS() throws {
        let w = Harness()
        let android = try w.device(.android)
        let iphone = try w.device(.ios)
        for device in [android, iphone] {
            var content = MessageContent(data: [("k", "v")], deliveryReceiptRequested: true)
            content.clientMessageId = "m-\(device.id)"
            _ = try w.emu.send(SendRequest(target: .token(device.token), content: content, api: .xmpp), from: w.project)
        }
        let receipts = w.emu.ccsTake(try w.emu.ccsConnect(sender: DemoProject.number).connection)
        #expect(receipts.map(\.messageId) == ["dr2:m-\(android.id)"])
        let receipt = DeliveryReceipt(
            originalMessageId: "m-\(android.id)", deviceToken: android.token, category: android.appId, sentAt: .virtualEpoch)
        #expect(receipts.first?.body == .receipt(receipt))
    }

    /// The line for a project's connections grew without bound and was rescanned
    /// whole on every pump.
    @Test func theLineIsBoundedAndDropsItsOldest() throws {
        let w = Harness()
        _ = try w.device(name: "pixel")
        for i in 0...10_000 { try w.emu.sendUpstream("pixel", projectId: w.project, data: [], messageId: "u-\(i)") }
        #expect(try w.emu.events(EventQuery(kinds: [.ccsDropped])).map(\.detail) == ["u-0"])
        let connection = try w.emu.ccsConnect(sender: DemoProject.id).connection
        #expect(w.emu.ccsTake(connection).first?.messageId == "u-1")
    }

    @Test func drainRequestsAreCounted() throws {
        let w = Harness()
        try w.emu.requestDrain(projectId: DemoProject.number)
        #expect(w.emu.drainRequests(projectId: DemoProject.id) == 1)
    }
}
