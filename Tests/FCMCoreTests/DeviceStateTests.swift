// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("Device states, priority, Doze, absence (docs/simulation.md)")
struct DeviceStateTests {
    @Test func dozeHoldsNormalPriorityUntilMaintenanceWindow() throws {
        let w = Harness()
        let d = try w.device(state: .doze)
        try w.sendData(d, priority: .normal)
        #expect(try w.inbox(d).isEmpty)
        try w.advance(seconds: 899)
        #expect(try w.inbox(d).isEmpty)
        try w.advance(seconds: 1)
        #expect(try w.inbox(d).count == 1)
        #expect(try w.inbox(d).first?.time == Instant.virtualEpoch.adding(seconds: 900))
    }

    @Test func dozeDeliversHighPriorityAtOnce() throws {
        let w = Harness()
        let d = try w.device(state: .doze)
        try w.sendData(d, priority: .high)
        #expect(try w.inbox(d).count == 1)
        #expect(try w.inbox(d).first?.priority == .high)
    }

    @Test func dozeWithoutMaintenanceWindowsWaitsForTheEnd() throws {
        let w = Harness { $0.dozeMaintenanceIntervalSeconds = 0 }
        let d = try w.device(state: .doze)
        try w.sendData(d)
        try w.advance(seconds: 7200)
        #expect(try w.inbox(d).isEmpty)
        try w.setState(d, .background)
        #expect(try w.inbox(d).count == 1)
    }

    @Test func leavingDozeCancelsItsMaintenanceTimers() throws {
        let w = Harness()
        let d = try w.device(state: .doze)
        try w.advance(seconds: 600)
        try w.setState(d, .offline)
        try w.sendData(d)
        try w.advance(seconds: 900)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func dozeIsAndroidOnly() throws {
        let w = Harness()
        let d = try w.device(.ios)
        #expect(throws: FCMError.self) { try w.setState(d, .doze) }
    }

    @Test func iosDataMessageWaitsForForeground() throws {
        let w = Harness()
        let d = try w.device(.ios, state: .background)
        try w.sendData(d)
        #expect(try w.inbox(d).isEmpty)
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).count == 1)
        #expect(try w.inbox(d).first?.callback(on: .ios) == "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)")
    }

    @Test func iosNotificationInBackgroundGoesToTheTray() throws {
        let w = Harness()
        let d = try w.device(.ios, state: .background)
        try w.sendNotification(d)
        #expect(try w.inbox(d).first?.handling == .tray)
    }

    @Test func iosContentAvailableIsASilentPush() throws {
        let w = Harness()
        let d = try w.device(.ios, state: .background)
        _ = try w.emu.send(
            SendRequest(target: .token(d.token), content: MessageContent(data: [("k", "v")], contentAvailable: true), api: .legacy),
            from: w.project
        )
        #expect(try w.inbox(d).first?.handling == .silent)
    }

    @Test func androidBackgroundDataGoesToTheApp() throws {
        let w = Harness()
        let d = try w.device(state: .background)
        try w.sendData(d)
        #expect(try w.inbox(d).first?.handling == .app)
        #expect(try w.inbox(d).first?.callback(on: .android) == "onMessageReceived")
    }

    @Test func sendAfterUninstallIsAcceptedDiscardedThenUnregistered() throws {
        let w = Harness()
        let d = try w.device()
        try w.emu.uninstall(String(d.id), projectId: w.project)
        try w.sendData(d)
        #expect(try w.events(d, .discarded).map(\.detail) == ["uninstalled"])
        #expect(try w.info(d).tokenValid == false)
        #expect { try w.sendData(d) } throws: { ($0 as? FCMError)?.code == .unregistered }
    }

    @Test func uninstallWithStoredMessagesInvalidatesAtOnce() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.sendData(d)
        try w.emu.uninstall(String(d.id), projectId: w.project)
        #expect(try w.info(d).tokenValid == false)
        #expect { try w.sendData(d) } throws: { ($0 as? FCMError)?.code == .unregistered }
    }

    @Test func deviceBackAfterMoreThanAMonthGetsTheDeletedSignal() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 31 * 86_400)
        try w.sendData(d)
        #expect(try w.events(d, .discarded).map(\.detail) == ["inactive"])
        #expect(try w.info(d).storedCount == 0)
        try w.advance(seconds: 86_400)
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).map(\.kind) == [.deletedMessages])
    }

    /// "Within four weeks of the last data message" (docs/simulation.md, "Long absence";
    /// https://firebase.google.com/docs/cloud-messaging/customize-messages/setting-message-lifespan).
    @Test func aDiscardedNotificationDoesNotArmTheDeletedSignal() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 31 * 86_400)
        let notification = MessageContent(notification: NotificationContent(title: "Hi"))
        _ = try w.emu.send(SendRequest(target: .token(d.token), content: notification, api: .v1), from: w.project)
        #expect(try w.events(d, .discarded).map(\.detail) == ["inactive"])
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func deviceBackAfterFourWeeksWithoutMessagesGetsNoSignal() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 31 * 86_400)
        try w.sendData(d)
        try w.advance(seconds: 29 * 86_400)
        try w.setState(d, .foreground)
        #expect(try w.inbox(d).isEmpty)
    }

    @Test func deviceAwayJustUnderAMonthStillStores() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.advance(seconds: 30 * 86_400)
        try w.sendData(d)
        #expect(try w.info(d).storedCount == 1)
    }

    @Test func priorityLatencyRunsOnTheClock() throws {
        let w = Harness { $0.normalPriorityLatencyMillis = 500 }
        let d = try w.device()
        try w.sendData(d)
        #expect(try w.inbox(d).isEmpty)
        try w.emu.advance(byMillis: 500)
        #expect(try w.inbox(d).count == 1)
        try w.sendData(d, priority: .high)
        #expect(try w.inbox(d).count == 2)
    }

    @Test func tokenRefreshWithGraceAnswersWithTheCanonicalToken() throws {
        let w = Harness { $0.tokenRefreshGraceSeconds = 3600 }
        let d = try w.device()
        let refreshed = try w.emu.refreshToken(String(d.id), projectId: w.project)
        #expect(refreshed.token != d.token)
        let outcome = try w.sendData(d)
        #expect(outcome.canonicalToken == refreshed.token)
        try w.advance(seconds: 3600)
        #expect { try w.sendData(d) } throws: { ($0 as? FCMError)?.code == .unregistered }
    }

    @Test func tokenRefreshWithoutGraceUnregistersTheOldToken() throws {
        let w = Harness()
        let d = try w.device()
        try w.emu.refreshToken(String(d.id), projectId: w.project)
        #expect { try w.sendData(d) } throws: { ($0 as? FCMError)?.code == .unregistered }
    }

    @Test func everyStateChangeIsAnEvent() throws {
        let w = Harness()
        let d = try w.device()
        try w.setState(d, .background)
        try w.advance(seconds: 5)
        try w.setState(d, .offline)
        let changes = try w.events(d, .stateChanged)
        #expect(changes.map(\.detail) == ["foreground→background", "background→offline"])
        #expect(changes.last?.time == Instant.virtualEpoch.adding(seconds: 5))
    }
}

/// A deleted device leaves no empty topic behind, as an unsubscription leaves none: the project's
/// topic table holds only topics someone is subscribed to.
@Suite("Deleting a device, and its topics")
struct DeletedDeviceTopicTests {
    @Test func aTopicOnlyADeletedDeviceHadIsGone() throws {
        let w = Harness()
        let gone = try w.device(topics: ["only-mine", "shared"])
        _ = try w.device(topics: ["shared"])
        try w.emu.deleteDevice(String(gone.id), projectId: w.project)
        let topics = try w.emu.topics(projectId: w.project).items.map { ($0.name, $0.subscribers) }
        #expect(topics.map(\.0) == ["shared"])
        #expect(topics.map(\.1) == [1])
    }
}
