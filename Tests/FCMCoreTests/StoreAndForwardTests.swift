// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("Store and forward, TTL, collapse keys, the 100-message cap (docs/simulation.md)")
struct StoreAndForwardTests {
    @Test func onlineDeviceReceivesAtOnce() throws {
        let w = Harness()
        let d = try w.device()
        try w.sendData(d)
        #expect(try w.inbox(d).count == 1)
        #expect(try w.inbox(d).first?.handling == .app)
    }

    @Test func offlineDeviceGetsStoredMessagesOnConnect() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendData(d, [("k", "1")])
        try w.sendData(d, [("k", "2")])
        #expect(try w.inbox(d).isEmpty)
        #expect(try w.info(d).storedCount == 2)
        try w.advance(seconds: 60)
        try w.setState(d, .background)
        #expect(try w.inbox(d).map(\.dataValue) == ["1", "2"])
        #expect(try w.inbox(d).allSatisfy { $0.time == Instant.virtualEpoch.adding(seconds: 60) })
        #expect(try w.info(d).storedCount == 0)
    }

    @Test func ttlZeroOnlineIsDelivered() throws {
        let w = Harness()
        let d = try w.device()
        try w.sendData(d, ttl: 0)
        #expect(try w.inbox(d).count == 1)
    }

    @Test func ttlZeroOfflineIsDiscardedAtOnceAndNeverStored() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendData(d, ttl: 0)
        #expect(try w.info(d).storedCount == 0)
        #expect(try w.events(d, .discarded).map(\.detail) == ["ttl-zero"])
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func expiryHappensExactlyAtTTL() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendData(d, ttl: 60)
        try w.advance(seconds: 59)
        try w.emu.advance(byMillis: 999)
        #expect(try w.info(d).storedCount == 1)
        try w.emu.advance(byMillis: 1)
        #expect(try w.info(d).storedCount == 0)
        let expired = try w.events(d, .expired)
        #expect(expired.count == 1)
        #expect(expired.first?.time == Instant.virtualEpoch.adding(seconds: 60))
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func connectingOneMillisecondBeforeExpiryDelivers() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendData(d, ttl: 60)
        try w.emu.advance(byMillis: 59_999)
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).count == 1)
        try w.advance(seconds: 10)
        #expect(try w.events(d, .expired).isEmpty)
    }

    @Test func sameCollapseKeyReplacesTheStoredMessage() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        let first = try w.sendData(d, [("k", "old")], collapseKey: "score")
        let second = try w.sendData(d, [("k", "new")], collapseKey: "score")
        #expect(try w.info(d).storedCount == 1)
        let collapsed = try w.events(d, .collapsed)
        #expect(collapsed.first?.message?.id == first.messageId)
        #expect(collapsed.first?.related?.id == second.messageId)
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).map(\.dataValue) == ["new"])
    }

    @Test func fourthCollapseKeyIsKeptFifthEvictsTheOldest() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        for key in ["a", "b", "c", "d"] { try w.sendData(d, [("k", key)], collapseKey: key) }
        #expect(try w.info(d).storedCount == 4)
        #expect(try w.events(d, .evicted).isEmpty)
        try w.sendData(d, [("k", "e")], collapseKey: "e")
        #expect(try w.info(d).storedCount == 4)
        #expect(try w.events(d, .evicted).map(\.detail) == ["a"])
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).map(\.dataValue) == ["b", "c", "d", "e"])
    }

    @Test func randomEvictionIsSeededAndRepeatable() throws {
        func evicted(seed: UInt64) throws -> [String?] {
            let w = Harness {
                $0.randomEviction = true; $0.seed = seed
            }
            let d = try w.device(state: .offline)
            for key in ["a", "b", "c", "d", "e", "f", "g"] { try w.sendData(d, [("k", key)], collapseKey: key) }
            return try w.events(d, .evicted).map(\.detail)
        }
        #expect(try evicted(seed: 7) == evicted(seed: 7))
        #expect(try evicted(seed: 7).count == 3)
    }

    @Test func hundredthStoredMessageIsKeptHundredFirstDiscardsAll() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        for i in 1...100 { try w.sendData(d, [("k", String(i))]) }
        #expect(try w.info(d).storedCount == 100)
        #expect(try w.info(d).deletedSignalOwed == false)
        try w.sendData(d, [("k", "101")])
        #expect(try w.events(d, .discarded).count == 100)
        #expect(try w.info(d).storedCount == 1)
        try w.sendData(d, [("k", "102")])
        try w.setState(d, .background)
        let inbox = try w.inbox(d)
        #expect(inbox.first?.kind == .deletedMessages)
        #expect(inbox.first?.callback(on: .android) == "onDeletedMessages")
        #expect(inbox.dropFirst().map(\.dataValue) == ["101", "102"])
    }

    @Test func collapsibleMessagesDoNotCountTowardsTheCap() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        for i in 1...100 { try w.sendData(d, [("k", String(i))]) }
        try w.sendData(d, [("k", "c")], collapseKey: "x")
        #expect(try w.info(d).storedCount == 101)
        #expect(try w.info(d).deletedSignalOwed == false)
    }

    @Test func notificationsWithoutKeyCollapseUnderThePerAppKey() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendNotification(d, title: "one")
        try w.sendNotification(d, title: "two")
        #expect(try w.info(d).storedCount == 1)
        try w.setState(d, .background)
        let inbox = try w.inbox(d)
        #expect(inbox.count == 1)
        #expect(inbox.first?.message?.content.notification?.title == "two")
        #expect(inbox.first?.handling == .tray)
        #expect(inbox.first?.collapseKey == "com.example.app")
    }

    @Test func shuffledDeliveryIsRepeatableForASeed() throws {
        func order(seed: UInt64) throws -> [String?] {
            let w = Harness {
                $0.shuffleDelivery = true; $0.seed = seed
            }
            let d = try w.device(state: .offline)
            for i in 1...10 { try w.sendData(d, [("k", String(i))]) }
            try w.setState(d, .foreground)
            return try w.inbox(d).map(\.dataValue)
        }
        #expect(try order(seed: 3) == order(seed: 3))
        #expect(try Set(order(seed: 3)).count == 10)
    }
}
