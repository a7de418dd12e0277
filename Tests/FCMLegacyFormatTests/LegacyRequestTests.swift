// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat
import Testing

/// The legacy message format that `/fcm/send` and CCS share (https://firebase.google.com/docs/cloud-messaging/http-server-ref,
/// https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref).
@Suite("Legacy message format")
struct LegacyRequestTests {
    private func read(_ json: String, multicast: Bool = true) throws(LegacyBadRequest) -> LegacyRequest {
        try LegacyJSONReader.read(Array(json.utf8), allowMulticast: multicast)
    }

    private func refusal(_ json: String, multicast: Bool = true) -> String? {
        do {
            _ = try read(json, multicast: multicast)
            return nil
        } catch {
            return error.text
        }
    }

    @Test func wrongTypesAreRefusedInTheServicesWords() {
        #expect(refusal(#"{"to":123}"#) == "Field \"to\" must be a JSON string: 123")
        #expect(refusal(#"{"to":"t","dry_run":"yes"}"#) == "Field \"dry_run\" must be a JSON boolean: \"yes\"")
        #expect(refusal(#"{"to":"t","registration_ids":["a"]}"#) == "Must use either \"registration_ids\" field or \"to\", not both")
        #expect(refusal(#"{"data":{"k":"v"}}"#) == "Missing \"registration_ids\" field")
        #expect(refusal(#"{"to":"t","data":{"from":"x"}}"#) == "\"data\" key \"from\" is a reserved keyword")
        #expect(refusal("[1]")?.hasPrefix("JSON_PARSING_ERROR") == true)
    }

    /// Collapse keys were unbounded, and each stored copy keeps its key.
    @Test func aCollapseKeyIsAtMost1024Bytes() throws {
        let long = String(repeating: "k", count: 1025)
        #expect(refusal(#"{"to":"t","collapse_key":"\#(long)"}"#) == "InvalidParameters: \"collapse_key\" is longer than 1024 bytes")
        #expect(try read(#"{"to":"t","collapse_key":"\#(long.dropLast())"}"#).content.collapseKey?.count == 1024)
    }

    @Test func recipientsByForm() throws {
        guard case .topic("news") = try read(#"{"to":"/topics/news"}"#).recipients else { Issue.record("not a topic"); return }
        guard case .tokens(let tokens, multicast: true) = try read(#"{"registration_ids":["a","b"]}"#).recipients else {
            Issue.record("not a multicast")
            return
        }
        #expect(tokens == ["a", "b"])
        // CCS sends to one recipient per stanza: registration_ids is not read there, and the
        // refusal names the field CCS does read.
        #expect(refusal(#"{"registration_ids":["a"]}"#, multicast: false) == "Missing \"to\" field")
    }

    @Test func conditionsTakeDoubleQuotesAndAtMostTwoOperators() throws {
        guard case .condition(let condition) = try read(#"{"condition":"\"a\" in topics && 'b' in topics"}"#).recipients else {
            Issue.record("not a condition")
            return
        }
        #expect(condition.topics == ["a", "b"])
        let three = "'a' in topics && 'b' in topics || 'c' in topics && 'd' in topics"
        #expect(refusal(#"{"condition":"\#(three)"}"#) == "Invalid \"condition\" field: \(three)")
    }

    /// A condition as deep or as long as the body allows is refused
    /// while it is read, without recursing or walking a huge tree.
    @Test func hostileConditionsAreRefusedCheaply() {
        let bangs = String(repeating: "!", count: 200_000) + "'a' in topics"
        #expect(refusal(#"{"condition":"\#(bangs)"}"#)?.hasPrefix("Invalid \"condition\" field") == true)
        let chain = Array(repeating: "'a' in topics", count: 40_000).joined(separator: " && ")
        #expect(refusal(#"{"condition":"\#(chain)"}"#)?.hasPrefix("Invalid \"condition\" field") == true)
    }

    @Test func aNotificationReachesEachPlatformInItsOwnForm() throws {
        let request = try read(
            #"{"to":"t","notification":{"title":"Hi","body":"there","badge":"3","android_channel_id":"news","sound":"ping"}}"#)
        let content = request.content
        #expect(content.notification?.title == "Hi")
        #expect(content.android?.notification.first { $0.0 == "channelId" }?.1 == .string("news"))
        let aps = content.apns?.payload.first { $0.0 == "aps" }?.1
        #expect(aps?["alert"]?["title"] == .string("Hi"))
        #expect(aps?["badge"] == .number("3"))
        #expect(aps?["sound"] == .string("ping"))
    }

    /// Tables 2a and 2c: a critical alert's sound dictionary and a numeric badge reach `aps`; a
    /// category with a colon is read, and only a web recipient would refuse it as a URL.
    @Test func appleRowsAreKeptAndWebURLsAreLeftToTheRecipient() throws {
        let request = try read(#"{"to":"t","notification":{"sound":{"critical":1,"name":"a.caf"},"badge":7,"click_action":"reply:now"}}"#)
        let aps = request.content.apns?.payload.first { $0.0 == "aps" }?.1
        #expect(aps?["sound"]?["name"] == .string("a.caf"))
        #expect(aps?["badge"] == .number("7"))
        #expect(aps?["category"] == .string("reply:now"))
        #expect(request.content.android?.notification.map(\.0) == ["clickAction"])
        #expect(request.webRefusal(isWeb: { _ in false }) == nil)
        #expect(request.webRefusal(isWeb: { _ in true })?.text == "InvalidParameters: \"notification.click_action\" must be an HTTPS URL")
    }

    /// Unknown names are kept aside, each with the known name nearest to it when it is a slip.
    @Test(arguments: [
        (#"{"to":"t","time_to_lve":1}"#, #"ignored unknown parameter "time_to_lve" (did you mean "time_to_live"?)"#),
        (#"{"to":"t","Priority":"high"}"#, #"ignored unknown parameter "Priority" (did you mean "priority"?)"#),
        (#"{"to":"t","dryrun":true}"#, #"ignored unknown parameter "dryrun" (did you mean "dry_run"?)"#),
        (#"{"to":"t","colapse_key":"k"}"#, #"ignored unknown parameter "colapse_key" (did you mean "collapse_key"?)"#),
        (#"{"to":"t","notification":{"bodi":"b"}}"#, #"ignored unknown parameter "notification.bodi" (did you mean "notification.body"?)"#),
        (#"{"to":"t","apns":{}}"#, #"ignored unknown parameter "apns""#),
        (#"{"to":"t","time_to_live":1,"notification":{"title":"T"}}"#, nil),
    ])
    func unknownNamesAreNamedWithTheNearestKnownOne(body: String, notice: String?) throws {
        #expect(try read(body).notice == notice)
    }

    /// Each protocol's own names: `message_id` is CCS's (XMPP reference, table 1), and CCS sends
    /// to one recipient per stanza, so `registration_ids` there is ignored.
    @Test func eachProtocolKnowsItsOwnNames() throws {
        #expect(try read(#"{"to":"t","message_id":"m"}"#, multicast: false).notice == nil)
        #expect(try read(#"{"to":"t","message_id":"m"}"#).notice == #"ignored unknown parameter "message_id""#)
        #expect(try read(#"{"to":"t","registration_ids":["a"]}"#, multicast: false).notice == #"ignored unknown parameter "registration_ids""#)
    }

    /// The notification is counted once, as sent, although the neutral
    /// form repeats it for Android, iOS and the web.
    @Test func thePayloadIsMeasuredOnceAsSent() throws {
        let body = String(repeating: "b", count: 2100)
        let request = try read(#"{"to":"t","data":{"k":"v"},"notification":{"title":"T","body":"\#(body)"}}"#)
        #expect(request.content.measuredPayloadSize == "k".count + "v".count + "title".count + 1 + "body".count + 2100)
    }
}
