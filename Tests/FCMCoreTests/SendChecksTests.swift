// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("Checks when a message is accepted, and targets")
struct SendChecksTests {
    private func code(_ body: () throws -> Void) -> FCMError.Code? {
        do {
            try body()
            return nil
        } catch let error as FCMError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func malformedTokenIsInvalidRegistration() throws {
        let w = Harness()
        let c = code {
            _ = try w.emu.send(SendRequest(target: .token("nope"), content: MessageContent(data: [("a", "b")]), api: .v1), from: w.project)
        }
        #expect(c == .invalidRegistration)
    }

    @Test func wellFormedUnknownTokenIsUnregistered() throws {
        let w = Harness()
        let token = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "x", count: 134)
        let c = code { _ = try w.emu.send(SendRequest(target: .token(token), content: MessageContent(), api: .v1), from: w.project) }
        #expect(c == .unregistered)
    }

    @Test func generatedTokensHaveTheRealShape() throws {
        let w = Harness()
        let d = try w.device()
        #expect(d.token.count == 163)
        #expect(d.token.hasPrefix(d.fid + ":APA91b"))
        #expect(d.fid.count == 22)
        #expect("cdef".contains(d.fid.first ?? "x"))
        #expect(IdentifierShape.isWellFormedToken(d.token))
    }

    @Test func otherProjectsTokenIsSenderIdMismatchUnlessAllowed() throws {
        let w = Harness()
        let other = try w.emu.createProject(id: "other-project")
        let d = try w.device()
        let request = SendRequest(target: .token(d.token), content: MessageContent(data: [("a", "b")]), api: .v1)
        #expect(code { _ = try w.emu.send(request, from: other.id) } == .senderIdMismatch)
        try w.emu.setSenders(String(d.id), projectId: w.project, extra: [other.number])
        #expect(code { _ = try w.emu.send(request, from: other.id) } == nil)
    }

    @Test func reservedDataKeysAreRefused() throws {
        let w = Harness()
        let d = try w.device()
        for key in ["from", "message_type", "google.x", "gcm.y"] {
            #expect(code { try w.sendData(d, [(key, "v")]) } == .invalidDataKey)
        }
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func payloadLimitIs4096AndTopicLimit2048() throws {
        let w = Harness()
        let d = try w.device(topics: ["news"])
        #expect(code { try w.sendData(d, [("k", String(repeating: "a", count: 4095))]) } == nil)
        #expect(code { try w.sendData(d, [("k", String(repeating: "a", count: 4096))]) } == .messageTooBig)
        let topic = { (n: Int) in
            _ = try w.emu.send(
                SendRequest(target: .topic("news"), content: MessageContent(data: [("k", String(repeating: "a", count: n))]), api: .v1),
                from: w.project)
        }
        #expect(code { try topic(2047) } == nil)
        #expect(code { try topic(2048) } == .messageTooBig)
    }

    /// Every data map and the web notification count toward the 4096 bytes, and a condition send
    /// is a topic message held to 2048.
    @Test func everyPlatformBlockCountsTowardTheLimit() throws {
        let w = Harness()
        let d = try w.device(topics: ["news"])
        let big = String(repeating: "a", count: 6000)
        let half = String(repeating: "a", count: 2100)
        let blocks: [MessageContent] = [
            MessageContent(android: AndroidOptions(data: [("k", big)])),
            MessageContent(webpush: WebpushOptions(data: [("k", big)])),
            MessageContent(webpush: WebpushOptions(notification: [("body", .string(big))])),
            MessageContent(data: [("k", half)], webpush: WebpushOptions(data: [("j", half)])),
        ]
        for content in blocks {
            let request = SendRequest(target: .token(d.token), content: content, api: .v1)
            #expect(code { _ = try w.emu.send(request, from: w.project) } == .messageTooBig)
        }
        let condition = { (n: Int) in
            _ = try w.emu.send(
                SendRequest(
                    target: .condition(try TopicCondition.parse("'news' in topics")),
                    content: MessageContent(data: [("k", String(repeating: "a", count: n))]), api: .v1),
                from: w.project)
        }
        #expect(code { try condition(2047) } == nil)
        #expect(code { try condition(2048) } == .messageTooBig)
    }

    /// "Some words (such as collapse_key) are also used by FCM but are allowed in the payload, in
    /// which case the payload value will be overridden by the FCM value": the app's `data` leaves
    /// the key out (RemoteMessage.getData) and its collapse key is FCM's.
    @Test func aDataKeyNamedCollapseKeyGivesWayToFCMs() throws {
        let w = Harness()
        let d = try w.device()
        try w.sendData(d, [("collapse_key", "mine"), ("k", "v")], collapseKey: "fcm")
        try w.sendData(d, [("collapse_key", "mine")])
        let payloads = try w.inbox(d).map { $0.payload(on: .android) }
        #expect(payloads.map { $0.objectValue?.first { $0.0 == "collapseKey" }?.1 } == [.string("fcm"), .string("do_not_collapse")])
        let data = payloads.map { $0.objectValue?.first { $0.0 == "data" }?.1.objectValue?.map(\.0) }
        #expect(data == [["k"], []])
    }

    @Test func ttlOutsideRangeIsRefused() throws {
        let w = Harness()
        let d = try w.device()
        #expect(code { try w.sendData(d, ttl: 2_419_200) } == nil)
        #expect(code { try w.sendData(d, ttl: 2_419_201) } == .invalidTTL)
        #expect(code { try w.sendData(d, ttl: -1) } == .invalidTTL)
    }

    @Test func restrictedPackageNameMustMatch() throws {
        let w = Harness()
        let d = try w.device()
        let send = { (pkg: String) in
            _ = try w.emu.send(
                SendRequest(target: .token(d.token), content: MessageContent(restrictedPackageName: pkg), api: .legacy), from: w.project)
        }
        #expect(code { try send("com.other") } == .invalidPackageName)
        #expect(code { try send("com.example.app") } == nil)
    }

    @Test func validateOnlyChecksEverythingAndChangesNothing() throws {
        let w = Harness()
        let d = try w.device()
        let outcome = try w.emu.send(
            SendRequest(target: .token(d.token), content: MessageContent(data: [("a", "b")]), validateOnly: true, api: .v1), from: w.project
        )
        #expect(outcome.message == nil)
        #expect(try w.inbox(d).isEmpty)
        #expect(try w.events(d, .accepted).isEmpty)
    }

    @Test func messageIdsHaveTheRealFormats() throws {
        let w = Harness()
        let d = try w.device(topics: ["news"])
        let id = try w.sendData(d).messageId
        #expect(id.hasPrefix("0:"))
        let parts = id.dropFirst(2).split(separator: "%")
        #expect(parts.count == 2 && parts[0].count == 16 && parts[1].count == 16)
        #expect(parts[1].prefix(8) == parts[1].suffix(8))
        // The epoch microseconds of the clock (a counter in the last three digits), then the app's
        // FNV-1a hash of "demo-fcm-emu/com.example.app" twice.
        #expect(parts[0] == "\(w.emu.now.millis)001" && parts[1] == "9f388bbe9f388bbe")
        let topicId = try w.emu.send(SendRequest(target: .topic("news"), content: MessageContent(), api: .v1), from: w.project).messageId
        #expect(Int64(topicId) != nil)
    }

    @Test func topicFanOutReachesSubscribersOnly() throws {
        let w = Harness()
        let a = try w.device(topics: ["news"])
        let b = try w.device(state: .offline, topics: ["news"])
        let c = try w.device()
        let outcome = try w.emu.send(
            SendRequest(target: .topic("news"), content: MessageContent(data: [("k", "v")]), api: .v1), from: w.project)
        #expect(outcome.message?.from == "/topics/news")
        #expect(try w.inbox(a).count == 1)
        #expect(try w.info(b).storedCount == 1)
        #expect(try w.inbox(c).isEmpty)
        #expect(try w.emu.events(EventQuery(topic: "news", kinds: [.delivered])).count == 1)
    }

    @Test func conditionMatchesByTopicsIncludingNegation() throws {
        let w = Harness()
        let ab = try w.device(topics: ["a", "b"])
        let a = try w.device(topics: ["a"])
        let none = try w.device()
        let send = { (condition: String) in
            _ = try w.emu.send(
                SendRequest(
                    target: .condition(try TopicCondition.parse(condition)), content: MessageContent(data: [("k", condition)]), api: .v1),
                from: w.project)
        }
        try send("'a' in topics && 'b' in topics")
        try send("!('a' in topics)")
        #expect(try w.inbox(ab).count == 1)
        #expect(try w.inbox(a).isEmpty)
        #expect(try w.inbox(none).count == 1)
    }

    @Test func unsubscribedDeviceNoLongerReceives() throws {
        let w = Harness()
        let d = try w.device(topics: ["news"])
        try w.emu.unsubscribe(String(d.id), projectId: w.project, topic: "news")
        _ = try w.emu.send(SendRequest(target: .topic("news"), content: MessageContent(), api: .v1), from: w.project)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func deviceRateLimitWhenConfigured() throws {
        let w = Harness { $0.deviceRateLimit = .init(messages: 2, windowSeconds: 60) }
        let d = try w.device()
        try w.sendData(d)
        try w.sendData(d)
        #expect(code { try w.sendData(d) } == .deviceMessageRateExceeded)
        #expect(code { try w.sendData(d, ttl: 0) } == nil)
        try w.advance(seconds: 60)
        #expect(code { try w.sendData(d) } == nil)
    }
}
