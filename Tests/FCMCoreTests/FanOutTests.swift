// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

@Suite("Topic fan-out in chunks")
struct FanOutTests {
    /// A fan-out to a million subscribers held the world lock for 0.5–0.7 s. Each lock
    /// hold now dispatches at most one chunk; the rest follows, lock released in between.
    @Test func aBigFanOutGoesOneChunkPerLockHold() throws {
        let w = Harness()
        let subscribers = FanOut.chunk + 100
        for _ in 0..<subscribers { _ = try w.device(topics: ["news"]) }
        let request = SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .v1)
        let projectIndex = try w.emu.withWorld { (world: inout World) throws(FCMError) -> Int32 in try world.projectIndex(id: w.project) }
        _ = try w.emu.withWorld { (world: inout World) throws(FCMError) -> SendOutcome in
            try world.send(request, projectIndex: projectIndex)
        }
        let delivered = { (try? w.emu.events(EventQuery(kinds: [.delivered], limit: subscribers + 1)).count) ?? -1 }
        #expect(delivered() == FanOut.chunk)
        #expect(w.emu.isFanningOut)
        w.emu.continueFanOuts()
        #expect(delivered() == subscribers)
        #expect(!w.emu.isFanningOut)
    }

    @Test func aSendReturnsWithItsFanOutDoneOnAVirtualClock() throws {
        let w = Harness()
        for _ in 0..<(FanOut.chunk * 2) { _ = try w.device(topics: ["news"]) }
        let outcome = try w.emu.send(
            SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .v1), from: w.project)
        #expect(outcome.groupSuccess == FanOut.chunk * 2)
        #expect(!w.emu.isFanningOut)
    }
}
