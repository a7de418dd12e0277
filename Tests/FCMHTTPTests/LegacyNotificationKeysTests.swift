// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// The legacy `notification` keys, row by row, as each platform's app reads them: the legacy HTTP
/// reference's tables 2a (iOS), 2b (Android) and 2c (web)
/// (https://firebase.google.com/docs/cloud-messaging/http-server-ref; docs/legacy.md). Each test
/// sends the rows of one table through `/fcm/send` and compares the bytes the app gets.
@Suite("Legacy notification keys, per platform")
struct LegacyNotificationKeysTests {
    /// Sends `notification` to a new `platform` device and answers the one delivery's payload.
    private func delivered(_ platform: Platform, notification: String) throws -> PayloadValue {
        let client = LegacyClient()
        let d = try client.device(platform, state: .background)
        let answer = try JSONParser.parse(client.send(#"{"to":"\#(d.token)","notification":\#(notification)}"#).body)
        #expect(answer["success"] == .int(1), "\(answer)")
        #expect(try client.inbox(d).count == 1)
        return try #require(try client.lastPayload(d))
    }

    private func bytes(_ value: PayloadValue?) -> String? { LegacyClient.bytes(value) }

    /// Table 2a: title, body, subtitle and the four localization keys make `aps.alert` (`loc-key`,
    /// `loc-args`, `title-loc-key`, `title-loc-args`); `badge`, `sound`, and `click_action`
    /// "corresponds to category in the APNs payload". The category is the app's own name and may
    /// hold a colon: it is no URL.
    @Test func iosRowsReachAps() throws {
        let payload = try delivered(
            .ios,
            notification: #"{"title":"T","body":"B","sound":"bingbong.aiff","badge":"5","click_action":"reply:now","subtitle":"S","#
                + #""body_loc_key":"BODY_KEY","body_loc_args":["Mario"],"title_loc_key":"TITLE_KEY","title_loc_args":["3x1"]}"#)
        #expect(
            bytes(payload["aps"])
                == #"{"alert":{"title":"T","body":"B","subtitle":"S","loc-key":"BODY_KEY","loc-args":["Mario"],"#
                + #""title-loc-key":"TITLE_KEY","title-loc-args":["3x1"]},"badge":5,"sound":"bingbong.aiff","category":"reply:now"}"#)
    }

    /// Table 2a, `badge`: "If not specified, the badge is not changed. If set to 0, the badge is
    /// removed." Senders write it as a number as often as a string; either reaches `aps` as a number.
    @Test(arguments: [(#""badge":7"#, "7"), (#""badge":0"#, "0"), (#""badge":"0""#, "0")])
    func aBadgeReachesApsAsANumber(row: String, badge: String) throws {
        let payload = try delivered(.ios, notification: #"{"title":"T",\#(row)}"#)
        #expect(bytes(payload["aps"]) == #"{"alert":{"title":"T"},"badge":\#(badge)}"#)
        let unchanged = try delivered(.ios, notification: #"{"title":"T"}"#)
        #expect(bytes(unchanged["aps"]) == #"{"alert":{"title":"T"}}"#)
    }

    /// Table 2a, `sound` (XMPP reference, as its Japanese edition words the row): "string or
    /// dictionary … For critical alerts, use a dictionary that contains sound information for
    /// critical alerts". The dictionary reaches `aps.sound` as sent; Android's `sound` names a
    /// resource (table 2b), so an Android app gets none.
    @Test func aCriticalAlertsSoundDictionaryReachesApsAsSent() throws {
        let sound = #"{"critical":1,"name":"alarm.caf","volume":0.5}"#
        let ios = try delivered(.ios, notification: #"{"title":"Fire","sound":\#(sound)}"#)
        #expect(bytes(ios["aps"]) == #"{"alert":{"title":"Fire"},"sound":\#(sound)}"#)
        let android = try delivered(.android, notification: #"{"title":"Fire","sound":\#(sound)}"#)
        #expect(bytes(android["notification"]) == #"{"title":"Fire"}"#)
    }

    /// Table 2b, every row, as `RemoteMessage.Notification` names them.
    @Test func androidRowsReachTheNotification() throws {
        let payload = try delivered(
            .android,
            notification: #"{"title":"T","body":"B","android_channel_id":"news","icon":"ic_stat_goal","sound":"default","#
                + ##""tag":"score","color":"#ff0000","click_action":"OPEN_SCORE","body_loc_key":"BODY_KEY","body_loc_args":["Mario"],"##
                + #""title_loc_key":"TITLE_KEY","title_loc_args":["3x1"]}"#)
        #expect(
            bytes(payload["notification"])
                == #"{"title":"T","body":"B","channelId":"news","icon":"ic_stat_goal","sound":"default","tag":"score","#
                + ##""color":"#ff0000","clickAction":"OPEN_SCORE","bodyLocKey":"BODY_KEY","bodyLocArgs":["Mario"],"##
                + #""titleLocKey":"TITLE_KEY","titleLocArgs":["3x1"]}"#)
    }

    /// Table 2b, `tag`: "If specified and a notification with the same tag is already being
    /// shown, the new notification replaces the existing one in the notification drawer."
    @Test func aTagReplacesTheShownNotification() throws {
        let client = LegacyClient()
        let d = try client.device(.android, state: .background)
        for score in ["1-0", "2-0"] {
            #expect(client.send(#"{"to":"\#(d.token)","notification":{"title":"\#(score)","tag":"match"}}"#).status == 200)
        }
        _ = client.send(#"{"to":"\#(d.token)","notification":{"title":"news"}}"#)
        let tray = try client.api.emulator.tray(String(d.id), projectId: DemoProject.id).entries
        #expect(tray.map(\.tag) == ["match", nil])
        #expect(bytes(tray.first?.delivery.payload(on: .android)["notification"]) == #"{"title":"2-0","tag":"match"}"#)
    }

    /// Table 2c, every row: title, body, and the two URLs, which are HTTPS.
    @Test func webRowsReachTheNotification() throws {
        let payload = try delivered(
            .web, notification: #"{"title":"T","body":"B","icon":"https://example.com/i.png","click_action":"https://example.com/inbox"}"#)
        #expect(
            bytes(payload["notification"])
                == #"{"title":"T","body":"B","icon":"https://example.com/i.png","click_action":"https://example.com/inbox"}"#)
    }

    /// Table 2c: "For all URL values, HTTPS is required", a row of the web table: a send that
    /// reaches a web app is refused 400 InvalidParameters (table 9); the same keys sent to an
    /// iOS app (a category) or an Android app (an intent action) are not URLs and pass.
    @Test func onlyAWebRecipientNeedsHTTPS() throws {
        let client = LegacyClient()
        let browser = try client.device(.web, state: .background)
        let iphone = try client.device(.ios, state: .background)
        let pixel = try client.device(.android, state: .background)
        for (row, field) in [
            (#""click_action":"reply:now""#, "click_action"), (#""click_action":"http://example.com/""#, "click_action"),
            (#""icon":"http://example.com/i.png""#, "icon"),
        ] {
            let refused = client.send(#"{"registration_ids":["\#(iphone.token)","\#(browser.token)"],"notification":{"title":"t",\#(row)}}"#)
            #expect(refused.status == 400)
            #expect(refused.bodyText == "InvalidParameters: \"notification.\(field)\" must be an HTTPS URL\n")
            let accepted = try JSONParser.parse(
                client.send(#"{"registration_ids":["\#(iphone.token)","\#(pixel.token)"],"notification":{"title":"t",\#(row)}}"#).body)
            #expect(accepted["success"] == .int(2), "\(accepted)")
        }
        #expect(try client.inbox(browser).isEmpty)
    }
}
