// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

@Suite("Control API")
struct ControlAPITests {
    let base = "/emulator/v1/projects/demo-fcm-emu"

    @Test func createsDevicesChangesStatesAndAdvancesTheClock() throws {
        let api = InProcess()
        let android = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"pixel"}"#, status: 201)
        let ios = try api.json("POST", "\(base)/devices", #"{"platform":"ios","name":"iphone","state":"background"}"#, status: 201)
        #expect(android.string("platform") == "android")
        #expect(android.string("token")?.contains(":APA91b") == true)
        #expect(ios.string("state") == "background")
        #expect(try api.json("PATCH", "\(base)/devices/pixel", #"{"state":"doze"}"#).string("state") == "doze")
        let clock = try api.json("POST", "/emulator/v1/clock:advance", #"{"by":"15m"}"#)
        #expect(clock.string("now") == "2026-01-01T00:15:00.000Z")
        #expect(clock.string("mode") == "virtual")
        let events = try api.json("GET", "\(base)/events?kind=stateChanged")
        #expect(events.string("events.0.detail") == "foreground→doze")
        let listed = try api.json("GET", "\(base)/devices")
        #expect(listed.at("total")?.int64Value == 2)
    }

    /// 100,000 topics on one new device were accepted.
    @Test func aNewDeviceTakesAtMostThePerInstanceTopicLimit() throws {
        let api = InProcess()
        let topics = (0...2000).map { "\"t\($0)\"" }.joined(separator: ",")
        let refused = try api.json("POST", "\(base)/devices", #"{"platform":"android","topics":[\#(topics)]}"#, status: 400)
        #expect(refused.string("error.field") == "topics")
        #expect(try api.json("GET", "\(base)/devices").at("total")?.int64Value == 0)
    }

    @Test func aRefusedPatchChangesNothing() throws {
        let api = InProcess()
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"pixel"}"#, status: 201)
        // Valid state, too many senders (the limit is 100 per instance): refused as a whole.
        let senders = (1...150).map { "\"\(1000 + $0)\"" }.joined(separator: ",")
        _ = try api.json("PATCH", "\(base)/devices/pixel", #"{"state":"offline","senders":[\#(senders)]}"#, status: 400)
        #expect(try api.json("GET", "\(base)/devices/pixel").string("state") == "foreground")
    }

    @Test func inboxRendersWhatTheAppReceivedPerPlatform() throws {
        let api = InProcess()
        let device = try api.json("POST", "\(base)/devices", #"{"platform":"ios","name":"iphone"}"#, status: 201)
        let token = try #require(device.string("token"))
        let content = MessageContent(data: [("room", "42")], notification: NotificationContent(title: "Hi", body: "there"))
        _ = try api.emulator.send(SendRequest(target: .token(token), content: content, api: .v1), from: DemoProject.id)
        let inbox = try api.json("GET", "\(base)/devices/iphone/inbox")
        #expect(inbox.string("deliveries.0.handling") == "app")
        #expect(inbox.string("deliveries.0.payload.aps.alert.title") == "Hi")
        #expect(inbox.string("deliveries.0.payload.room") == "42")
        #expect(inbox.string("deliveries.0.payload.gcm.message_id") == nil)  // dotted key, read it directly:
        #expect(inbox.at("deliveries.0.payload")?["gcm.message_id"]?.stringValue?.hasPrefix("0:") == true)
        _ = try api.json("DELETE", "\(base)/devices/iphone/inbox")
        #expect(try api.json("GET", "\(base)/devices/iphone/inbox").at("deliveries")?.arrayValue?.isEmpty == true)
    }

    @Test func uninstallRefreshAndTopics() throws {
        let api = InProcess()
        let device = try api.json("POST", "\(base)/devices", #"{"platform":"android","topics":["news"]}"#, status: 201)
        let id = try #require(device.string("id"))
        #expect(try api.json("PUT", "\(base)/devices/\(id)/topics/sport").at("topics") == .array([.string("news"), .string("sport")]))
        #expect(try api.json("DELETE", "\(base)/devices/\(id)/topics/news").at("topics") == .array([.string("sport")]))
        #expect(try api.json("GET", "\(base)/topics").string("topics.0.name") == "sport")
        #expect(try api.json("POST", "\(base)/devices/\(id):uninstall").string("state") == "uninstalled")
        let refreshed = try api.json("POST", "\(base)/devices/\(id):refreshToken")
        #expect(refreshed.string("token") != device.string("token"))
        #expect(refreshed.string("state") == "background")
        // The old token still finds the device in the control API.
        #expect(try api.json("GET", "\(base)/devices/\(try #require(device.string("token")))").string("id") == id)
    }

    @Test func createsManyDevicesAtOnce() throws {
        let api = InProcess()
        let made = try api.json("POST", "\(base)/devices", #"{"platform":"web","count":25,"topics":["t"]}"#, status: 201)
        #expect(made.at("devices")?.arrayValue?.count == 25)
        #expect(try api.json("GET", "\(base)/devices?limit=10&offset=20").at("devices")?.arrayValue?.count == 5)
    }

    @Test func projectsAndResets() throws {
        let api = InProcess()
        let made = try api.json("POST", "/emulator/v1/projects", #"{"id":"my-app","number":"555"}"#, status: 201)
        #expect(made.at("serverKeys")?.arrayValue?.count == 1)
        _ = try api.json("POST", "/emulator/v1/projects/my-app/devices", #"{"platform":"android"}"#, status: 201)
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"my-app"}"#, status: 409)
        _ = try api.json("POST", "/emulator/v1/projects/my-app:reset")
        #expect(try api.json("GET", "/emulator/v1/projects/my-app/devices").at("total")?.int64Value == 0)
        _ = try api.json("POST", "/emulator/v1/reset")
        _ = try api.json("GET", "/emulator/v1/projects/my-app", status: 404)
        #expect(try api.json("GET", "/emulator/v1/projects/demo-fcm-emu").string("number") == DemoProject.number)
    }

    @Test(arguments: [
        (#"{"platform":"android""#, "Malformed JSON"),
        (#"[1,2]"#, "must be a JSON object"),
        (#"{"platform":7}"#, "must be a string"),
        (#"{"platform":"symbian"}"#, "must be one of"),
        (#"{"platform":"android","plaform":"x"}"#, "Unknown field 'plaform'"),
        (#"{"platform":"android","topics":["bad topic"]}"#, "Invalid topic name"),
        (#"{"platform":"ios","state":"doze"}"#, "Doze is an Android state"),
        (#"{"platform":"android","count":0}"#, "count must be"),
        (#"{}"#, "'platform' is required"),
    ])
    func badDeviceBodiesAreRefusedAndChangeNothing(body: String, message: String) throws {
        let api = InProcess()
        let error = try api.json("POST", "\(base)/devices", body, status: 400)
        #expect(error.string("error.message")?.contains(message) == true, "\(error)")
        #expect(error.string("error.status") == "INVALID_ARGUMENT")
        #expect(try api.json("GET", "\(base)/devices").at("total")?.int64Value == 0)
    }

    @Test func aFailingPatchChangesNothing() throws {
        let api = InProcess()
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"a"}"#, status: 201)
        _ = try api.json("PATCH", "\(base)/devices/a", #"{"state":"offline","senders":["not-a-number"]}"#, status: 400)
        #expect(try api.json("GET", "\(base)/devices/a").string("state") == "foreground")
        #expect(try api.emulator.events(EventQuery(kinds: [.stateChanged])).isEmpty)
    }

    @Test func unknownRoutesAndMethodsAnswerClearly() throws {
        let api = InProcess()
        _ = try api.json("GET", "\(base)/devices/nope", status: 404)
        let wrongMethod = api.call("PUT", "\(base)/devices")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "GET, POST")
        // An action route allows what it serves, not the methods of the device it names (found by schemathesis).
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android"}"#, status: 201)
        #expect(api.call("GET", "\(base)/devices/0:uninstall").header("Allow") == "POST")
        // The clock refuses to pass its last instant, naming the field it was given.
        let far = try api.json("POST", "/emulator/v1/clock:advance", #"{"by":"9223372036854775806ms"}"#, status: 400)
        #expect(far.string("error.field") == "by")
        _ = try api.json("GET", "/emulator/v1/nothing-here", status: 404)
        _ = try api.json("GET", "\(base)/events?bogus=1", status: 400)
        _ = try api.json("GET", "\(base)/events?kind=teleported", status: 400)
        _ = try api.json("POST", "/emulator/v1/clock:advance", #"{"by":"-5s"}"#, status: 400)
        _ = try api.json("POST", "/emulator/v1/clock:advance", #"{"to":"2020-01-01T00:00:00Z"}"#, status: 400)
        let elsewhere = api.call("GET", "/no/such/page")
        #expect(elsewhere.status == 404)
        #expect(elsewhere.bodyText.contains("Error 404 (Not Found)!!1"))
    }

    @Test func openAPIDocumentListsEveryRoute() throws {
        let api = InProcess()
        let document = try api.json("GET", "/emulator/v1/openapi.json")
        let paths = try #require(document["paths"])
        for (method, pattern) in api.responder.router.patterns where pattern.hasPrefix("/emulator/v1") {
            let operation = paths[pattern]?[method.lowercased()]
            #expect(operation != nil, "\(method) \(pattern) is not in openapi.json")
        }
    }

    @Test func healthAndInfo() throws {
        let api = InProcess()
        #expect(try api.json("GET", "/emulator/v1/health").string("status") == "ok")
        #expect(try api.json("GET", "/emulator/v1/info")["test"] == .bool(true))
    }
}
