// SPDX-License-Identifier: Apache-2.0

@testable import FCMControl
@testable import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// `GET /emulator/v1/metrics` (docs/control-api.md, "Metrics"): Prometheus's text format, counters
/// that the event log's eviction never lowers.
@Suite("Prometheus metrics")
struct MetricsTests {
    private func scrape(_ api: InProcess) -> [String: Int64] {
        let response = api.call("GET", "/emulator/v1/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        var samples: [String: Int64] = [:]
        for line in response.bodyText.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int64(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }

    @Test func countersSurviveTheEventLogsEviction() throws {
        var settings = EmulatorSettings()
        settings.maxEvents = 10
        let api = InProcess(Emulator(settings: settings, clock: .virtual(start: .virtualEpoch)))
        let online = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let away = try api.emulator.createDevice(
            DeviceSpec(platform: .android, appId: "com.example.app", state: .offline), projectId: DemoProject.id)
        let path = "/v1/projects/\(DemoProject.id)/messages:send"
        for _ in 0..<20 { #expect(api.call("POST", path, #"{"message":{"token":"\#(online.token)"}}"#).status == 200) }
        #expect(api.call("POST", path, #"{"message":{"token":"\#(away.token)"}}"#).status == 200)
        #expect(api.call("POST", path, #"{"message":{"token":"not-a-token"}}"#).status == 400)
        #expect(api.call("POST", "/fcm/send", #"{"to":"x"}"#).status == 401)
        let samples = scrape(api)
        #expect(samples[#"fcm_emu_messages_accepted_total{api="v1"}"#] == 21)
        #expect(samples["fcm_emu_deliveries_total"] == 20)
        #expect(samples["fcm_emu_messages_stored_total"] == 1)
        #expect(samples["fcm_emu_messages_stored"] == 1)
        #expect(samples[#"fcm_emu_requests_refused_total{api="v1",code="INVALID_ARGUMENT"}"#] == 1)
        #expect(samples[#"fcm_emu_requests_refused_total{api="legacy",code="Unauthorized"}"#] == 1)
        #expect(samples[#"fcm_emu_devices{state="offline"}"#] == 1)
        #expect(samples[#"fcm_emu_devices{state="foreground"}"#] == 1)
        #expect(samples["fcm_emu_events_kept"] == 10)
        #expect((samples["fcm_emu_events_evicted_total"] ?? 0) > 30)
    }

    /// Label values are escaped as the format asks, and a flood of distinct codes is capped.
    @Test func refusalLabelsAreEscapedAndBounded() {
        var counters = EventCounters()
        for i in 0..<(EventCounters.maxRefusalLabels + 50) {
            counters.count(.refused, message: nil, call: EventCall(project: nil, api: "v1", code: i == 0 ? "a\"b\\c\nd" : "code-\(i)"))
        }
        #expect(counters.refusals.count == EventCounters.maxRefusalLabels + 1)
        let text = ControlAPI.exposition(counters, WorldGauges())
        #expect(text.contains(#"code="a\"b\\c\nd""#))
        #expect(text.contains(#"fcm_emu_requests_refused_total{api="v1",code="other"} 50"#))
    }
}
