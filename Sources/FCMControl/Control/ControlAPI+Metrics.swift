// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTransport

/// `GET /emulator/v1/metrics`: Prometheus's text exposition format, version 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/), for load tests of push
/// pipelines (docs/control-api.md, "Metrics"). Counters come from `EventCounters`, kept beside the
/// event log so its eviction never lowers them; gauges are what the world holds at the scrape.
/// Written here rather than with swift-prometheus: the numbers live under the world's lock and
/// start again with the world, which a registry of its own would have to mirror.
extension ControlAPI {
    func registerMetrics(into router: inout Router) {
        router.add(
            "GET", "\(Self.prefix)/metrics",
            handle { _, _ throws(FCMError) in
                let (counters, gauges) = emulator.metrics()
                var body = Self.exposition(counters, gauges)
                if let clients { body += Self.exposition(clients.clients()) }
                return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
            })
    }

    static func exposition(_ c: EventCounters, _ g: WorldGauges) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Int64)]) {
            out += "# HELP fcm_emu_\(name) \(help)\n# TYPE fcm_emu_\(name) \(type)\n"
            for sample in samples { out += "fcm_emu_\(name)\(sample.labels) \(sample.value)\n" }
        }
        func counter(_ name: String, _ help: String, _ kind: Event.Kind) {
            family(name, "counter", help, [("", c.total(kind))])
        }
        family(
            "messages_accepted_total", "counter", "Messages FCM accepted (one per send, not per recipient), by API.",
            c.acceptedByAPI.sorted { $0.key < $1.key }.map { ("{api=\"\(label($0.key))\"}", $0.value) })
        family(
            "requests_refused_total", "counter", "Requests a front refused, by API and the error code the client got.",
            c.refusals.sorted { ($0.key.api, $0.key.code) < ($1.key.api, $1.key.code) }.map {
                ("{api=\"\(label($0.key.api))\",code=\"\(label($0.key.code))\"}", $0.value)
            })
        counter("deliveries_total", "Messages a device received.", .delivered)
        counter("messages_stored_total", "Messages stored for a device that could not take them then.", .stored)
        counter("messages_collapsed_total", "Stored messages replaced by a newer one with the same collapse key.", .collapsed)
        counter("messages_evicted_total", "Stored messages evicted to keep to the collapse-key limit.", .evicted)
        counter("messages_expired_total", "Stored messages that reached the end of their TTL.", .expired)
        counter("messages_discarded_total", "Messages dropped without delivery (TTL 0 while away, an uninstalled app, the 100 cap).", .discarded)
        counter("faults_injected_total", "Times a fault rule fired.", .faultInjected)
        counter("access_tokens_granted_total", "OAuth access tokens issued.", .accessTokenGranted)
        family("projects", "gauge", "Projects in the world.", [("", Int64(g.projects))])
        family(
            "devices", "gauge", "Simulated devices and real receivers, by state.",
            DeviceState.allCases.map { ("{state=\"\($0.rawValue)\"}", Int64(g.devicesByState[$0] ?? 0)) })
        family("messages_stored", "gauge", "Messages held for devices now.", [("", Int64(g.storedMessages))])
        family("timers_pending", "gauge", "Timers waiting on the emulator's clock (deliveries, expiries, Doze windows).", [("", Int64(g.pendingTimers))])
        family("fanouts_in_flight", "gauge", "Topic and condition messages still reaching their recipients.", [("", Int64(g.fanOutsInFlight))])
        family("events_kept", "gauge", "Events the log holds now (maxEvents, maxEventBytes).", [("", Int64(g.eventsKept))])
        family("events_evicted_total", "counter", "Events the log dropped to stay within its caps.", [("", Int64(g.eventsEvicted))])
        return out
    }

    /// The HTTP and HTTPS ports' connections by listener, summed over clients (`GET /connections`
    /// has them by client): a pool that leaks shows as `connections_open` that only grows.
    static func exposition(_ clients: [ClientConnections.Client]) -> String {
        struct Totals { var opened = 0, open = 0, requests = 0, streams = 0 }
        var totals: [String: Totals] = [:]
        for c in clients {
            totals[c.listener, default: Totals()].opened += c.opened
            totals[c.listener, default: Totals()].open += c.open
            totals[c.listener, default: Totals()].requests += c.requests
            totals[c.listener, default: Totals()].streams += c.streamsOpened
        }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: (Totals) -> Int) {
            out += "# HELP fcm_emu_\(name) \(help)\n# TYPE fcm_emu_\(name) \(type)\n"
            for (listener, t) in totals.sorted(by: { $0.key < $1.key }) {
                out += "fcm_emu_\(name){listener=\"\(label(listener))\"} \(value(t))\n"
            }
        }
        family("connections_opened_total", "counter", "Connections accepted on the HTTP and HTTPS ports, by port.") { $0.opened }
        family("connections_open", "gauge", "Connections open now on the HTTP and HTTPS ports, by port.") { $0.open }
        family("http_requests_total", "counter", "Requests read on the HTTP and HTTPS ports, by port.") { $0.requests }
        family("http2_streams_opened_total", "counter", "HTTP/2 streams opened on the HTTP and HTTPS ports, by port.") { $0.streams }
        return out
    }

    /// A label value as the format escapes it: backslash, double quote and line feed.
    private static func label(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
