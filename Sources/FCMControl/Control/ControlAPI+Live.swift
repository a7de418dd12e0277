// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport
import Synchronization

/// Reads that do not poll: `waitFor` on the inbox and the events lists, and the
/// Server-Sent Events stream of the event log. Both are woken by the emulator when events are
/// logged, so on a virtual or paused clock a wait ends the moment its condition holds.
extension ControlAPI {
    static let waitParameters = ["waitFor", "timeout"]
    static let defaultWaitMillis: Int64 = 30_000
    static let maxWaitMillis: Int64 = 300_000
    static let heartbeatMillis: Int64 = 15_000
    /// How long a disconnected `EventSource` waits before it reconnects (the `retry:` field).
    static let reconnectMillis = 2000

    struct WaitRequest {
        let count: Int
        let timeoutMillis: Int64
    }

    func registerStreams(into router: inout Router) {
        let p = Self.prefix
        router.add(
            "GET", "\(p)/events:stream",
            handle { request, _ throws(FCMError) in try stream(request, projectId: nil, device: nil) })
        router.add(
            "GET", "\(p)/projects/{project}/events:stream",
            handle { request, params throws(FCMError) in try stream(request, projectId: try params.require("project"), device: nil) })
        router.add(
            "GET", "\(p)/projects/{project}/devices/{device}/events:stream",
            handle { request, params throws(FCMError) in
                let project = try params.require("project")
                let id = try emulator.device(try params.require("device"), projectId: project).id
                return try stream(request, projectId: project, device: id)
            })
    }

    /// `waitFor=N&timeout=5s`: nil when the request does not ask to wait. Both are read strictly
    /// (`WaitParameters`): `timeout=0x10` was 16 seconds.
    func waitRequest(_ request: HTTPRequest, limit: Int) throws(FCMError) -> WaitRequest? {
        guard let text = request.queryValue("waitFor") else {
            guard request.queryValue("timeout") == nil else {
                throw FCMError(.invalidArgument, "timeout applies to a wait: add waitFor=N", field: "timeout")
            }
            return nil
        }
        guard let count = WaitParameters.count(text), (1...limit).contains(count) else {
            throw FCMError(.invalidArgument, "waitFor must be a whole number from 1 to \(limit) (the limit)", field: "waitFor")
        }
        var millis = Self.defaultWaitMillis
        if let timeout = request.queryValue("timeout") {
            guard let given = WaitParameters.millis(timeout), given <= Self.maxWaitMillis else {
                throw FCMError(
                    .invalidArgument, "timeout must be a duration of at most 5m, like 500ms, 10s or 5m (digits and a unit)",
                    field: "timeout")
            }
            millis = given
        }
        return WaitRequest(count: count, timeoutMillis: millis)
    }

    /// Answers now when `count(current)` reaches the wait's count (or the timeout is zero);
    /// otherwise a response holding what there is now, which a transport keeps open until the
    /// count is reached or the timeout passes. `Emulator-Wait` says which ended it.
    ///
    /// A wake-up does not read the answer again: `progress` counts what was logged since the last
    /// one (a bounded page; `done` false when more remain), and `read` runs once, for the answer.
    /// Only events that `interest` may concern wake it.
    func waiting<T: Sendable>(
        _ wait: WaitRequest, interest: EventInterest, current: T, count: @escaping @Sendable (T) -> Int,
        progress: @escaping @Sendable () throws(FCMError) -> (count: Int, done: Bool),
        read: @escaping @Sendable () throws(FCMError) -> T, answer: @escaping @Sendable (T) -> HTTPResponse
    ) -> HTTPResponse {
        if count(current) >= wait.count { return Self.tagged(answer(current), "satisfied") }
        if wait.timeoutMillis == 0 { return Self.tagged(answer(current), "timeout") }
        guard let slot = live.admit(.wait) else {
            return ControlError.response(
                status: 429, name: "RESOURCE_EXHAUSTED", message: "Too many open waits (at most \(live.maxWaits)); try again later")
        }
        // A read that fails (the device or project was deleted) is the answer.
        let final = { @Sendable (outcome: String) -> HTTPResponse in
            do throws(FCMError) {
                return Self.tagged(answer(try read()), outcome)
            } catch {
                return ControlError.response(error)
            }
        }
        let check = { @Sendable () -> PendingAnswer.Progress in
            do throws(FCMError) {
                let (counted, done) = try progress()
                if counted >= wait.count { return .answer(final("satisfied")) }
                return done ? .waiting : .readMore
            } catch {
                return .answer(ControlError.response(error))
            }
        }
        var response = Self.tagged(answer(current), "timeout")
        response.outcome = .live(
            .wait(
                PendingAnswer(
                    timeoutMillis: wait.timeoutMillis, check: check, expire: { final("timeout") },
                    watch: { [emulator] in emulator.watchEvents(interest, $0) }, slot: slot)))
        return response
    }

    /// A wait on an events list: counts matching events as they are logged (`EventTally`).
    func waitingForEvents(
        _ wait: WaitRequest, query: EventQuery, answer: @escaping @Sendable ([Event]) -> HTTPResponse
    ) throws(FCMError) -> HTTPResponse {
        let (current, start) = try emulator.eventsTallied(query)
        let tally = Mutex(start)
        return waiting(
            wait, interest: EventInterest(query), current: current, count: \.count,
            progress: { [emulator] () throws(FCMError) -> (count: Int, done: Bool) in
                var t = tally.withLock { $0 }
                let done = try emulator.advance(&t, matching: query)
                tally.withLock { $0 = t }
                return (t.count, done)
            },
            read: { [emulator] () throws(FCMError) -> [Event] in try emulator.events(query) }, answer: answer)
    }

    private static func tagged(_ response: HTTPResponse, _ outcome: String) -> HTTPResponse {
        var response = response
        response.headers.append(("Emulator-Wait", outcome))
        return response
    }

    /// `GET …/events:stream`: the event log as Server-Sent Events, from `Last-Event-ID` (or
    /// `lastEventId`) on, or from now. Each reader holds a cursor into the log, not a queue.
    func stream(_ request: HTTPRequest, projectId: String?, device: DeviceID?) throws(FCMError) -> HTTPResponse {
        let query = try eventQuery(request, projectId: projectId, device: device, extra: ["lastEventId"])
        let resume = request.header("Last-Event-ID") ?? request.queryValue("lastEventId")
        var start = emulator.nextEventSequence
        if let resume {
            guard let last = Int(resume.filter { $0 != " " }), last >= -1 else {
                throw FCMError(
                    .invalidArgument, "Last-Event-ID must be an event sequence number, or -1 for the oldest kept", field: "lastEventId")
            }
            start = min(last, Int.max - 1) + 1
        }
        _ = try emulator.eventPage(from: start, matching: query, maxScan: 0, maxEvents: 0)  // a bad filter fails here, as a 4xx
        guard let slot = live.admit(.stream) else {
            return ControlError.response(
                status: 429, name: "RESOURCE_EXHAUSTED", message: "Too many open event streams (at most \(live.maxStreams))")
        }
        let reader = EventStreamReader(
            emulator: emulator, query: query, cursor: start, broadcast: feed.broadcast(for: emulator), frames: feed.frames)
        var response = HTTPResponse(status: 200, contentType: "text/event-stream; charset=utf-8", body: "")
        response.body = reader.opening(reconnectMillis: Self.reconnectMillis)
        response.outcome = .live(
            .stream(
                StreamingBody(
                    first: response.body, next: { reader.next() }, heartbeat: { reader.heartbeat() }, heartbeatMillis: Self.heartbeatMillis,
                    farewell: Array("event: shutdown\ndata: {}\n\n".utf8), watch: { reader.watch(on: $0, $1) }, slot: slot)))
        return response
    }
}
