// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// The events list's answer: `{"events": [...]}`, oldest first, ending at `maxAnswerBytes` like
/// every other list (docs/limits.md). A `limit` of 100,000 events of big messages was a 115 MB
/// answer built whole; now the newest events that fit are kept, and `nextBefore` names the
/// sequence to ask with `before=` for the older ones. Once the log has dropped events to stay
/// within its caps, the answer says so (`evicted`): a list that ends at the oldest kept event is
/// not the whole history, and a reader should not take it for one.
extension ControlAPI {
    static func eventList(_ events: [Event], limit: Int, log: EventLogState? = nil) -> HTTPResponse {
        var kept: [JSONValue] = []
        var bytes = 0
        for event in events.reversed() {
            let value = ControlJSON.event(event)
            // As the answer lays it out: pretty, each line indented two levels deeper, a comma.
            let text = value.encoded(.pretty).utf8
            bytes += text.count + 4 * (text.count { $0 == UInt8(ascii: "\n") } + 1) + 2
            if !kept.isEmpty, bytes > maxAnswerBytes { break }
            kept.append(value)
        }
        // More may match below the oldest kept event when the page was cut or the limit reached.
        let more = kept.count < events.count || events.count >= limit
        let oldest = events.count - kept.count
        return ControlJSON.response(
            .object(omittingNils: [
                ("events", .array(kept.reversed())),
                ("nextBefore", more && oldest < events.count ? .int(events[oldest].sequence) : nil),
                ("evicted", log.flatMap(evicted)),
            ]))
    }

    /// `{"count", "oldestKeptSequence", "oldestKept", "setting", "settingValue"}`: how many events
    /// the log dropped, where it is whole from, and the `--set` setting that keeps more.
    static func evicted(_ log: EventLogState) -> JSONValue? {
        guard log.evicted > 0 else { return nil }
        return .object(omittingNils: [
            ("count", .int(log.evicted)),
            ("oldestKeptSequence", .int(log.oldestSequence)),
            ("oldestKept", log.oldestTime.map { .string($0.iso8601) }),
            ("setting", .string((log.cap ?? .maxEvents).rawValue)),
            ("settingValue", .int(log.capValue)),
        ])
    }

    /// An event sequence number in strict decimal (`before=`).
    static func sequence(_ text: String?, field: String) throws(FCMError) -> Int? {
        guard let text else { return nil }
        guard let n = strictCount(text) else {
            throw FCMError(.invalidArgument, "\(field) must be an event sequence number (0 or more)", field: field)
        }
        return n
    }
}
