// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Foundation
import Testing

/// The topic, group and project lists are paged (`offset`, `limit`, `total`,
/// `nextOffset`) and a page ends at 8 MiB, as the device list does; server keys and fault-rule
/// text fields have caps of their own.
@Suite struct ListPageTests {
    let base = "/emulator/v1/projects/demo-fcm-emu"

    /// Follows `nextOffset` from the first page to the last, checking each page's size.
    func walk(_ api: InProcess, _ path: String, key: String, query: String = "") throws -> (pages: Int, names: [String]) {
        var names: [String] = []
        var pages = 0
        var offset: Int64? = 0
        while let at = offset, pages < 100 {
            let response = api.call("GET", "\(path)?offset=\(at)\(query)")
            #expect(response.status == 200)
            #expect(response.body.count < 12 << 20, "page \(pages) is \(response.body.count) bytes")
            let page = try JSONParser.parse(response.body)
            let entries = page.at(key)?.arrayValue ?? []
            #expect(!entries.isEmpty)
            names += entries.compactMap { $0["name"]?.stringValue ?? $0["id"]?.stringValue }
            offset = page.at("nextOffset")?.int64Value
            pages += 1
        }
        return (pages, names)
    }

    /// 20,000 topics of 900 bytes (18 MB of names) came in one answer; now in pages of ≤ 8 MiB.
    @Test func aTopicListIsPagedByBytes() throws {
        let emu = Emulator()
        for d in 0..<10 {
            let topics = (0..<2000).map { "d\(d)-t\($0)-" + String(repeating: "x", count: 880) }
            _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", topics: topics), projectId: DemoProject.id)
        }
        let api = InProcess(emu)
        let first = try api.json("GET", "\(base)/topics")
        #expect(first.at("total")?.int64Value == 20_000)
        #expect(first.at("nextOffset") != nil)
        let (pages, names) = try walk(api, "\(base)/topics", key: "topics")
        #expect(pages >= 3)
        #expect(names.count == 20_000)
        #expect(names == names.sorted())
        #expect(Set(names).count == 20_000)
    }

    /// 20,000 subscriptions to topics of 880 bytes: `limit=100000` answered about 20 MB at once
    /// (115 MB and 470 MB of peak memory with big messages); now a page holds the newest that fit
    /// in 8 MiB, and `nextBefore` names where the older ones start (`before=`).
    @Test func theEventsListIsPagedByBytes() throws {
        let emu = Emulator()
        for d in 0..<10 {
            let topics = (0..<2000).map { "d\(d)-t\($0)-" + String(repeating: "x", count: 880) }
            _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", topics: topics), projectId: DemoProject.id)
        }
        let api = InProcess(emu)
        var before: Int64?
        var sequences: [Int64] = []
        var pages = 0
        repeat {
            let response = api.call("GET", "/emulator/v1/events?kind=subscribed&limit=100000" + (before.map { "&before=\($0)" } ?? ""))
            #expect(response.status == 200)
            #expect(response.body.count < 9 << 20, "page \(pages) is \(response.body.count) bytes")
            let page = try JSONParser.parse(response.body)
            let found = page.at("events")?.arrayValue?.compactMap { $0["sequence"]?.int64Value } ?? []
            #expect(!found.isEmpty)
            #expect(found == found.sorted())
            if let oldest = before { #expect(found.allSatisfy { $0 < oldest }) }
            sequences = found + sequences
            before = page.at("nextBefore")?.int64Value
            pages += 1
        } while before != nil && pages < 20
        #expect(pages >= 3)
        #expect(sequences.count == 20_000)
        #expect(Set(sequences).count == 20_000)
        // `before` reads the past and `waitFor` waits for what is new: not both.
        #expect(api.call("GET", "/emulator/v1/events?before=5&waitFor=1").status == 400)
        #expect(api.call("GET", "/emulator/v1/events?before=-1").status == 400)
    }

    /// 3,000 groups of 20 members: about 11 MB of tokens and names, in pages.
    @Test func aGroupListIsPagedByBytes() throws {
        let emu = Emulator()
        var tokens: [String] = []
        for _ in 0..<20 {
            tokens.append(try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id).token)
        }
        for g in 0..<3000 {
            let name = "group-\(g)-" + String(repeating: "g", count: 240)
            _ = try emu.createGroup(name: name, tokens: tokens, projectIdOrNumber: DemoProject.id)
        }
        let api = InProcess(emu)
        let (pages, names) = try walk(api, "\(base)/groups", key: "groups")
        #expect(pages >= 2)
        #expect(names.count == 3000)
        #expect(Set(names).count == 3000)
    }

    @Test func listsTakeOffsetAndLimit() throws {
        let api = InProcess()
        for id in ["proj-a", "proj-b", "proj-c"] { _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"\#(id)"}"#, status: 201) }
        let page = try api.json("GET", "/emulator/v1/projects?offset=1&limit=2")
        #expect(page.at("projects")?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["proj-a", "proj-b"])
        #expect(page.at("total")?.int64Value == 4)
        #expect(page.at("nextOffset")?.int64Value == 3)
        #expect(try api.json("GET", "/emulator/v1/projects").at("nextOffset") == nil)
        let (_, all) = try walk(api, "/emulator/v1/projects", key: "projects", query: "&limit=1")
        #expect(all == [DemoProject.id, "proj-a", "proj-b", "proj-c"])

        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","topics":["a","b","c"]}"#, status: 201)
        let topics = try api.json("GET", "\(base)/topics?offset=1&limit=1")
        #expect(topics.at("topics")?.arrayValue?.first?["name"]?.stringValue == "b")
        #expect(topics.at("nextOffset")?.int64Value == 2)
        #expect(try api.json("GET", "\(base)/topics?offset=5").at("topics")?.arrayValue?.isEmpty == true)
        for bad in ["limit=0", "limit=100001", "offset=-1", "limit=0x10", "limit=+5", "offset=", "offset=99999999999999999999"] {
            let answer = try api.json("GET", "\(base)/topics?\(bad)", status: 400)
            #expect(answer.string("error.status") == "INVALID_ARGUMENT", "\(bad)")
            _ = try api.json("GET", "\(base)/groups?\(bad)", status: 400)
            _ = try api.json("GET", "/emulator/v1/projects?\(bad)", status: 400)
        }
    }

    /// Seeded random `offset` and `limit` texts: plain digits in range give a page, anything else
    /// (a sign, hex, spaces, an exponent, too many digits) is 400, on every paged list.
    @Test func pageParametersAreStrictDecimal() throws {
        let api = InProcess()
        var random = SeededRandom(seed: 23)
        let alphabet = Array("0123456789+-x e.%")
        for round in 0..<300 {
            let text = String((0..<Int.random(in: 0...7, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "0" })
            let name = round.isMultiple(of: 2) ? "offset" : "limit"
            let digits = !text.isEmpty && text.allSatisfy(\.isNumber)
            let value = Int(text) ?? -1
            let good = digits && (name == "offset" || (1...100_000).contains(value))
            let escaped = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            for path in ["\(base)/topics", "\(base)/groups", "/emulator/v1/projects"] {
                let response = api.call("GET", "\(path)?\(name)=\(escaped)")
                #expect(response.status == (good ? 200 : 400), "\(name)=\(text) on \(path)")
            }
        }
    }

    @Test func serverKeysAreCappedInCountAndLength() throws {
        let api = InProcess()
        let key = String(repeating: "k", count: 256)  // Project.maxServerKeyBytes
        let sixteen = (0..<16).map { "\"\($0)\(key.dropFirst(2))\"" }.joined(separator: ",")
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"many-keys","serverKeys":[\#(sixteen)]}"#, status: 201)
        let seventeen = try api.json(
            "POST", "/emulator/v1/projects", #"{"id":"too-many","serverKeys":[\#(sixteen),"x"]}"#, status: 400)
        #expect(seventeen.string("error.message")?.contains("at most 16 server keys") == true)
        let long = try api.json("POST", "/emulator/v1/projects", #"{"id":"too-long","serverKeys":["\#(key)k"]}"#, status: 400)
        #expect(long.string("error.message")?.contains("1–256 bytes") == true)
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"empty-key","serverKeys":[""]}"#, status: 400)
        #expect(try api.json("GET", "/emulator/v1/projects").at("total")?.int64Value == 2)
    }

    @Test(arguments: [
        (#"{"match":{"route":"R"},"action":{"reset":true}}"#, "match.route"),
        (#"{"match":{"target":"R"},"action":{"reset":true}}"#, "match.target"),
        (#"{"match":{"project":"R"},"action":{"reset":true}}"#, "match.project"),
        (#"{"match":{"device":"R"},"action":{"reset":true}}"#, "match.device"),
        (#"{"action":{"error":"R"}}"#, "action.error"),
    ])
    func faultRuleTextFieldsAreCapped(_ rule: String, _ field: String) throws {
        let api = InProcess()
        let long = rule.replacingOccurrences(of: "\"R\"", with: "\"" + String(repeating: "r", count: 1025) + "\"")
        let answer = try api.json("POST", "/emulator/v1/faults", long, status: 400)
        #expect(answer.string("error.message")?.contains("\(field) must be at most 1024 bytes") == true, "\(answer)")
        #expect(try api.json("GET", "/emulator/v1/faults").at("faults")?.arrayValue?.isEmpty == true)
        if field != "action.error" {
            let fits = rule.replacingOccurrences(of: "\"R\"", with: "\"" + String(repeating: "r", count: 1024) + "\"")
            _ = try api.json("POST", "/emulator/v1/faults", fits, status: 201)
        }
    }
}
