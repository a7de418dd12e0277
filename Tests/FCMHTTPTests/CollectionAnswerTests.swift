// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// Big device answers are bounded, and a cap is a 429 naming its setting.
@Suite struct CollectionAnswerTests {
    let base = "/emulator/v1/projects/demo-fcm-emu"

    /// 2000 topics of 900 bytes: 10 devices would repeat 18 MB of names; they come once instead.
    @Test func aCountCreationWithManyTopicsListsThemOnce() throws {
        let api = InProcess()
        let topics = (0..<2000).map { "\"t\($0)-" + String(repeating: "x", count: 890) + "\"" }.joined(separator: ",")
        let response = api.call("POST", "\(base)/devices", #"{"platform":"android","count":10,"topics":["# + topics + "]}")
        #expect(response.status == 201)
        #expect(response.body.count < 4 << 20, "the answer is \(response.body.count) bytes")
        let answer = try JSONParser.parse(response.body)
        #expect(answer.at("devices")?.arrayValue?.count == 10)
        #expect(answer.at("devices.0.topics") == nil)
        #expect(answer.at("topics")?.arrayValue?.count == 2000)
        // Every device holds them all the same.
        let one = try api.json("GET", "\(base)/devices/\(answer.string("devices.9.id") ?? "")")
        #expect(one.at("topics")?.arrayValue?.count == 2000)
        // An ordinary count creation keeps the shape it had.
        let small = try api.json("POST", "\(base)/devices", #"{"platform":"ios","count":2,"topics":["news"]}"#, status: 201)
        #expect(small.at("devices.1.topics")?.arrayValue?.first?.stringValue == "news")
        #expect(small.at("topics") == nil)
    }

    /// 100 devices × 2,000 topics of 900 bytes is 180 MB of names to check and hash on one event
    /// loop (seconds, with every other connection of that loop waiting): refused, nothing made.
    @Test func aCountCreationSubscribesAtMost32MiBOfTopicNames() throws {
        let api = InProcess()
        let topics = (0..<2000).map { "\"t\($0)-" + String(repeating: "z", count: 890) + "\"" }.joined(separator: ",")
        let refused = try api.json("POST", "\(base)/devices", #"{"platform":"android","count":100,"topics":["# + topics + "]}", status: 400)
        #expect(refused.string("error.message")?.contains("smaller batches") == true)
        #expect(try api.json("GET", "\(base)/devices").at("total")?.int64Value == 0)
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","count":18,"topics":["# + topics + "]}", status: 201)
    }

    @Test func aDeviceListPageEndsAtItsByteBudgetAndSaysWhereToGoOn() throws {
        let api = InProcess()
        let topics = (0..<2000).map { "\"t\($0)-" + String(repeating: "y", count: 890) + "\"" }.joined(separator: ",")
        _ = api.call("POST", "\(base)/devices", #"{"platform":"android","count":12,"topics":["# + topics + "]}")
        let response = api.call("GET", "\(base)/devices?limit=100")
        #expect(response.status == 200)
        #expect(response.body.count < 12 << 20, "the page is \(response.body.count) bytes")
        let page = try JSONParser.parse(response.body)
        let listed = page.at("devices")?.arrayValue?.count ?? 0
        #expect(listed >= 1 && listed < 12)
        #expect(page.at("total")?.int64Value == 12)
        #expect(page.at("nextOffset")?.int64Value == Int64(listed))
        let rest = try api.json("GET", "\(base)/devices?offset=\(listed)&limit=100")
        #expect((rest.at("devices")?.arrayValue?.count ?? 0) >= 1)
        // A small list has no nextOffset.
        let fresh = InProcess()
        _ = try fresh.json("POST", "\(base)/devices", #"{"platform":"android"}"#, status: 201)
        #expect(try fresh.json("GET", "\(base)/devices").at("nextOffset") == nil)
    }

    @Test func capsAre429ResourceExhaustedNamingTheSetting() throws {
        var settings = EmulatorSettings()
        settings.maxProjects = 2
        settings.maxDevices = 3
        settings.maxFaultRules = 1
        let api = InProcess(Emulator(settings: settings))
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"second"}"#, status: 201)
        let project = try api.json("POST", "/emulator/v1/projects", #"{"id":"third"}"#, status: 429)
        #expect(project.string("error.status") == "RESOURCE_EXHAUSTED")
        #expect(project.string("error.message")?.contains("maxProjects") == true)
        let many = try api.json("POST", "\(base)/devices", #"{"platform":"android","count":4}"#, status: 429)
        #expect(many.string("error.message")?.contains("maxDevices") == true)
        #expect(try api.json("GET", "\(base)/devices").at("total")?.int64Value == 0)
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","count":3}"#, status: 201)
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android"}"#, status: 429)
        let rule = #"{"id":"r","action":{"error":"UNAVAILABLE"}}"#
        _ = try api.json("POST", "/emulator/v1/faults", rule, status: 201)
        let second = try api.json("POST", "/emulator/v1/faults", rule.replacingOccurrences(of: "\"r\"", with: "\"s\""), status: 429)
        #expect(second.string("error.message")?.contains("maxFaultRules") == true)
        _ = try api.json("PUT", "/emulator/v1/faults", #"{"faults":[\#(rule),\#(rule)]}"#, status: 429)
        #expect(try api.json("GET", "/emulator/v1/faults").at("faults")?.arrayValue?.count == 1)
    }
}
