// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import Testing

/// The events list read the way the dashboard's Refusals panel reads it: one kind, newest first, a
/// page at a time (`limit=`, then `before=` the page's `nextBefore`), filtered by token; and what
/// the log dropped to stay within `maxEvents` (`evicted`, docs/control-api.md, "Events").
@Suite("Refusals paged, and the event log's eviction, in the events list")
struct EventListEvictionTests {
    static let send = "/v1/projects/\(DemoProject.id)/messages:send"

    static func refusal(_ target: String, _ n: Int) -> Refusal {
        Refusal(api: "v1", project: DemoProject.id, status: 404, code: "UNREGISTERED", target: target, detail: "refusal \(n)")
    }

    /// Every page of `path` from the newest, following `nextBefore`: the sequences, oldest first.
    static func walk(_ api: InProcess, _ path: String) throws -> (sequences: [Int64], pages: Int, last: JSONValue?) {
        var before: Int64?
        var sequences: [Int64] = []
        var pages = 0
        var last: JSONValue?
        repeat {
            let page = try api.json("GET", path + (before.map { "&before=\($0)" } ?? ""))
            let found = page.at("events")?.arrayValue?.compactMap { $0["sequence"]?.int64Value } ?? []
            #expect(found == found.sorted())
            if let before { #expect(found.allSatisfy { $0 < before }) }
            sequences = found + sequences
            before = page.at("nextBefore")?.int64Value
            last = page
            pages += 1
        } while before != nil && pages < 100
        return (sequences, pages, last)
    }

    @Test func refusalsAmongOtherEventsArePagedNewestFirstAndFilteredByToken() throws {
        let api = InProcess()
        let device = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        for n in 0..<45 {
            // Between refusals, events of other kinds: a page must hold refusals only.
            #expect(api.call("POST", Self.send, #"{"message":{"token":"\#(device.token)"}}"#).status == 200)
            api.emulator.recordRefusals([Self.refusal(n % 3 == 0 ? device.token : "gone-token-\(n % 2)", n)])
        }
        let (sequences, pages, last) = try Self.walk(api, "/emulator/v1/events?kind=refused&limit=10")
        #expect(pages == 5)
        #expect(sequences.count == 45)
        #expect(Set(sequences).count == 45)
        // Nothing dropped yet: the answer says nothing of eviction.
        #expect(last?.at("evicted") == nil)

        // The newest page ends with the newest refusal.
        let newest = try api.json("GET", "/emulator/v1/events?kind=refused&limit=1")
        #expect(newest.at("events")?.arrayValue?.first?["detail"]?.stringValue == "refusal 44")

        // By token: the device's own refusals, and a token no device ever held, by target alone.
        let mine = try Self.walk(api, "/emulator/v1/events?kind=refused&limit=4&token=\(device.token)")
        #expect(mine.sequences.count == 15)
        let gone = try Self.walk(api, "/emulator/v1/events?kind=refused&limit=4&token=gone-token-1")
        #expect(gone.sequences.count == 15)
        let all = try api.json("GET", "/emulator/v1/events?kind=refused&limit=100&token=gone-token-1")
        #expect(all.at("events")?.arrayValue?.allSatisfy { $0["target"]?.stringValue == "gone-token-1" } == true)
        // The device's token still finds its other events too.
        let accepted = try api.json("GET", "/emulator/v1/events?kind=accepted&limit=100&token=\(device.token)")
        #expect(accepted.at("events")?.arrayValue?.count == 45)
    }

    @Test func aListOfALogThatDroppedEventsSaysHowManyAndWhichSettingKeepsMore() throws {
        var settings = EmulatorSettings()
        settings.maxEvents = 50
        let api = InProcess(Emulator(settings: settings, clock: .virtual(start: .virtualEpoch)))
        let device = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        for n in 0..<60 {
            #expect(api.call("POST", Self.send, #"{"message":{"token":"\#(device.token)"}}"#).status == 200)
            api.emulator.recordRefusals([Self.refusal("gone", n)])
        }
        let list = try api.json("GET", "/emulator/v1/events?limit=1000")
        let events = list.at("events")?.arrayValue ?? []
        #expect(events.count == 50)
        let evicted = try #require(list.at("evicted"))
        let written = Int64(api.emulator.nextEventSequence)
        #expect(evicted["count"]?.int64Value == written - 50)
        #expect(evicted["oldestKeptSequence"]?.int64Value == events.first?["sequence"]?.int64Value)
        #expect(evicted["oldestKept"]?.stringValue == events.first?["time"]?.stringValue)
        #expect(evicted["setting"]?.stringValue == "maxEvents")
        #expect(evicted["settingValue"]?.int64Value == 50)

        // The refusals' pages say it too, and hold every refusal the log kept.
        let refusals = try EventListEvictionTests.walk(api, "/emulator/v1/events?kind=refused&limit=7")
        #expect(refusals.last?.at("evicted.count") == evicted["count"])
        let kept = events.filter { $0["kind"]?.stringValue == "refused" }.compactMap { $0["sequence"]?.int64Value }
        #expect(refusals.sequences == kept)
        // The metrics count the same drops.
        let metrics = api.call("GET", "/emulator/v1/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("fcm_emu_events_evicted_total \(written - 50)"))
    }

    @Test func theByteCapIsNamedWhenItDroppedTheEvents() throws {
        var settings = EmulatorSettings()
        settings.maxEventBytes = EmulatorSettings.maxEventBytesRange.lowerBound
        let api = InProcess(Emulator(settings: settings, clock: .virtual(start: .virtualEpoch)))
        let detail = String(repeating: "x", count: Refusal.maxTextBytes)
        var n = 0
        while api.emulator.eventLogState.evicted == 0, n < 100_000 {
            api.emulator.recordRefusals([Refusal(api: "v1", status: 400, code: "INVALID_ARGUMENT", detail: detail + "\(n)")])
            n += 1
        }
        let list = try api.json("GET", "/emulator/v1/events?kind=refused&limit=1")
        #expect(list.at("evicted.setting")?.stringValue == "maxEventBytes")
        #expect(list.at("evicted.settingValue")?.int64Value == Int64(settings.maxEventBytes))
    }
}
