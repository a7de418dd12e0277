// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

/// One front request is one world call: the sender's project, the front's
/// credentials rule, the group-key lookup, the sends and the legacy `multicast_id` together, and
/// the clock's speed read without a lock.
@Suite("A front request's sends in one world call")
struct SendCallTests {
    private func data(_ target: MessageTarget, _ lookup: SendRequest.GroupLookup = .none) -> SendRequest {
        SendRequest(target: target, content: MessageContent(data: [("k", "v")]), api: .legacy, groupLookup: lookup)
    }

    @Test func aRefusedSenderChangesNothing() throws {
        let w = Harness()
        let d = try w.device()
        let before = w.emu.nextEventSequence
        var seen: [String?] = []
        let answer = w.emu.send([data(.token(d.token))], from: .serverKey(DemoProject.serverKey), multicastId: true) {
            seen.append($0?.id)
            return false
        }
        #expect(answer == nil)
        #expect(seen == [DemoProject.id])
        #expect(w.emu.nextEventSequence == before)
        #expect(try w.inbox(d).isEmpty)
        // The seeded generator drew nothing either: a twin that never saw the call draws the same.
        let twin = Harness()
        _ = try twin.device()
        #expect(w.emu.randomInt64() == twin.emu.randomInt64())
    }

    @Test func theRuleSeesTheProjectTheSenderNames() throws {
        let w = Harness()
        var seen: [String?] = []
        for sender in [Sender.serverKey("nobody's key"), .project(DemoProject.number), .project("no-such"), .tokenOwner] {
            _ = w.emu.send([], from: sender) {
                seen.append($0?.id)
                return true
            }
        }
        #expect(seen == [nil, DemoProject.id, nil, nil])
    }

    @Test func aLegacyToThatNamesAGroupGoesToTheGroup() throws {
        let w = Harness()
        let (a, b) = (try w.device(), try w.device())
        let group = try w.emu.createGroup(name: "g", tokens: [a.token, b.token], projectIdOrNumber: w.project)
        let answer = try #require(
            w.emu.send([data(.token(group.notificationKey), .tokenOrGroup)], from: .project(w.project), multicastId: true))
        let item = try #require(answer.items.first)
        #expect(item.toGroup)
        #expect(try item.result?.get().groupSuccess == 2)
        #expect(answer.multicastId == nil)
        #expect(try w.inbox(a).count == 1 && w.inbox(b).count == 1)

        // Without the lookup the same key is a token, and no device holds it.
        let plain = try #require(w.emu.send([data(.token(group.notificationKey))], from: .project(w.project), multicastId: true))
        #expect(plain.items.first?.toGroup == false)
        #expect(throws: FCMError.self) { try plain.items.first?.result?.get() }
        #expect(plain.multicastId != nil)
    }

    @Test func aNotificationKeyThatNamesNoGroupIsNotSent() throws {
        let w = Harness()
        let before = w.emu.nextEventSequence
        let answer = try #require(w.emu.send([data(.notificationKey("no-such-key"), .groupOrNothing)], from: .project(w.project)))
        #expect(answer.items.count == 1)
        #expect(answer.items.first?.result == nil)
        #expect(w.emu.nextEventSequence == before)
    }

    @Test func laxSendersActAsEachTokensOwnProject() throws {
        let w = Harness()
        try w.emu.createProject(id: "other")
        let mine = try w.device()
        let theirs = try w.emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: "other")
        let requests = [data(.token(mine.token)), data(.token(theirs.token)), data(.topic("news"))]
        let answer = try #require(w.emu.send(requests, from: .tokenOwner))
        #expect(answer.items.map(\.projectId) == [DemoProject.id, "other", DemoProject.id])
        #expect(try answer.items.allSatisfy { try $0.result?.get() != nil })
    }

    @Test func theClockSpeedIsReadWithoutTheDriver() throws {
        #expect(Emulator().clockSpeed == 0)
        let wall = WallStub()
        let emu = Emulator(clock: .wall(start: .virtualEpoch, wallMillis: { wall.read() }))
        #expect(emu.clockSpeed == 1)
        try emu.setClockSpeed(60)
        #expect(emu.clockSpeed == 60)
        emu.pauseClock()
        #expect(emu.clockSpeed == 0)
        emu.resumeClock()
        #expect(emu.clockSpeed == 60)
        #expect(emu.clockSpeed == emu.clockStatus.speed)
    }
}
