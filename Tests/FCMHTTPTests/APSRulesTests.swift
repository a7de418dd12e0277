// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

@Suite("HTTP v1: apns.payload.aps as FCM checks it")
struct APSRulesTests {
    let send = "/v1/projects/demo-fcm-emu/messages:send"

    private func message(_ payload: String) -> String {
        #"{"message":{"topic":"news","apns":{"payload":\#(payload)}}}"#
    }

    /// The captured reply, byte for byte after parsing: BadRequest first, then FcmError.
    @Test func badgeMustBeANumber() throws {
        let api = InProcess()
        let response = api.call("POST", send, message(#"{"aps":{"badge":"seven"}}"#))
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/json; charset=UTF-8")
        let expected =
            #"{"error":{"code":400,"message":"Value type for APS key [badge] is a number.","status":"INVALID_ARGUMENT","#
            + #""details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"#
            + #""field":"message.apns.payload.aps.badge","#
            + #""description":"Value type for APS key [badge] is a number."}]},"#
            + #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}"#
        #expect(try JSONParser.parse(response.body).encoded() == expected)
    }

    @Test(arguments: [
        (#"{"aps":{"alert":7}}"#, "aps.alert", "Value type for APS key [alert] is a string or a dictionary."),
        (#"{"aps":{"alert":{"title":1}}}"#, "aps.alert.title", "Value type for APS alert key [title] is a string."),
        (
            #"{"aps":{"alert":{"loc-args":"a"}}}"#, "aps.alert.loc-args",
            "Value type for APS alert key [loc-args] is an array of strings."
        ),
        (#"{"aps":{"sound":["a"]}}"#, "aps.sound", "Value type for APS key [sound] is a string or a dictionary."),
        (
            #"{"aps":{"sound":{"critical":1,"name":"x","volume":2}}}"#, "aps.sound.volume",
            "Value for APS sound key [volume] is between 0 and 1."
        ),
        (
            #"{"aps":{"sound":{"critical":true,"name":"x"}}}"#, "aps.sound.critical",
            "Value for APS sound key [critical] is either 0 or 1."
        ),
        (#"{"aps":{"mutable-content":true}}"#, "aps.mutable-content", "Value for APS key [mutable-content] is either 0 or 1."),
        (#"{"aps":{"content-available":"1"}}"#, "aps.content-available", "Value type for APS key [content-available] is a number."),
        (#"{"aps":{"category":5}}"#, "aps.category", "Value type for APS key [category] is a string."),
        (#"{"aps":{"thread-id":{}}}"#, "aps.thread-id", "Value type for APS key [thread-id] is a string."),
        (#"{"aps":{}}"#, "aps", "Value of [aps] must be a non-empty dictionary."),
        (#"{"aps":"x"}"#, "aps", "Value of [aps] must be a non-empty dictionary."),
        (#"{"sound":"default"}"#, "", "Payload of Apple Push Notification Service must contain an [aps] key."),
    ])
    func refusedWithTheFieldNamed(payload: String, field: String, description: String) throws {
        let api = InProcess()
        let response = api.call("POST", send, message(payload))
        #expect(response.status == 400, "\(payload)")
        let error = try JSONParser.parse(response.body)
        #expect(error.string("error.message") == description)
        #expect(error.string("error.details.0.@type") == "type.googleapis.com/google.rpc.BadRequest")
        let fullField = "message.apns.payload" + (field.isEmpty ? "" : "." + field)
        #expect(error.string("error.details.0.fieldViolations.0.field") == fullField)
        #expect(error.string("error.details.1.errorCode") == "INVALID_ARGUMENT")
        #expect(try api.emulator.events(EventQuery(kinds: [.accepted])).isEmpty)
    }

    /// What the SDKs emit (python `encode_aps`, go `Aps`) is accepted, and so are custom aps keys.
    @Test(arguments: [
        #"{"aps":{"alert":"hi","badge":3,"sound":"default","content-available":1,"mutable-content":1,"category":"c"}}"#,
        #"{"aps":{"alert":{"title":"t","subtitle":"s","body":"b","loc-key":"k","loc-args":["a"]},"badge":0.0,"thread-id":"t"}}"#,
        #"{"aps":{"sound":{"critical":1,"name":"siren","volume":0.5}},"custom":{"any":[1,2]}}"#,
        #"{"aps":{"custom-key":true,"badge":null}}"#,
        #"{}"#,
    ])
    func sdkShapesAreAccepted(payload: String) throws {
        let api = InProcess()
        let response = api.call("POST", send, message(payload))
        #expect(response.status == 200, "\(payload): \(response.bodyText)")
    }

    /// INVALID_ARGUMENT comes with a BadRequest naming the field
    /// (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode).
    @Test func reservedDataKeyNamesTheDataField() throws {
        let api = InProcess()
        let error = try JSONParser.parse(api.call("POST", send, #"{"message":{"topic":"x","data":{"from":"me"}}}"#).body)
        #expect(error.string("error.message") == "Invalid data payload key: from")
        #expect(error.string("error.details.0.errorCode") == "INVALID_ARGUMENT")
        #expect(error.string("error.details.1.fieldViolations.0.field") == "message.data")
        #expect(error.string("error.details.1.fieldViolations.0.description") == "Invalid data payload key: from")
    }
}
