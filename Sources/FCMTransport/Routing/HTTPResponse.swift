// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A complete HTTP response: the answer a route gives, and what the transport does with it
/// (`Outcome`), which a route that just answers leaves as it is.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// What an FCM front refused in this answer, as the client sees it (`RefusalRecorder` records
    /// them as `refused` events; the access log says why). A front notes those it answers with a
    /// success status (legacy per-result errors); error statuses are noted even when it does not.
    public var refusals: [Refusal] = []
    /// The API that answered, as the access log names it (`API`, set from the router's mounts).
    public var api = API.other.name
    public var outcome = Outcome.write

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, body: String) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.equalsIgnoringASCIICase(name) }?.1
    }

    /// The standard reason phrase; batch parsers need one on every status line (googleapiclient/http.py
    /// splits a batch part's status line in three; docs/http-v1.md).
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Payload Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }
}

/// A GOAWAY frame to send (RFC 9113 §6.8): its error code (0 is NO_ERROR, a graceful close) and
/// opaque debug data.
public struct GoAway: Sendable, Equatable {
    public var errorCode: UInt32
    public var debugData: String?

    public init(errorCode: UInt32, debugData: String? = nil) {
        self.errorCode = errorCode
        self.debugData = debugData
    }

    public var isGraceful: Bool { errorCode == 0 }
}

extension HTTPResponse {
    /// What the transport does with an answer: write it (at once, later, or before closing), or
    /// in its stead what a fault asks of the connection, or carry it on later (a wait, a stream).
    /// HTTP/1.1 and in-process callers have no stream or GOAWAY to send: `dropsConnection` says
    /// what they see.
    public enum Outcome: Sendable {
        case write
        /// Write it, then close the connection.
        case writeThenClose
        /// Write it this many milliseconds of the emulator's clock later (an injected latency):
        /// the transport waits the wall-time equivalent, the scenario runner advances the clock.
        case delay(millis: Int64)
        /// Drop the connection instead of answering (an injected reset).
        case reset
        /// End an HTTP/2 connection with GOAWAY (an injected goaway): after the answer when
        /// graceful, which elsewhere closes the connection after it; instead of it otherwise,
        /// which elsewhere drops the connection.
        case goAway(GoAway)
        /// Reset the request's HTTP/2 stream with RST_STREAM and this error code (RFC 9113 §6.4,
        /// §7) instead of answering (an injected rstStream); elsewhere the connection drops.
        case resetStream(UInt32)
        /// Never answer (an injected hold): the request stays open, keeping this place among the
        /// server's `LiveRequests`, until the client gives up, the connection closes, or the
        /// server stops. In-process callers see the status, which no client of a socket does.
        case hold(LiveSlot)
        /// The rest of the answer comes later: a wait or an event stream (transports only).
        case live(LiveAnswer)

        /// No answer is written and the connection goes, as HTTP/1.1 and in-process callers see it.
        public var dropsConnection: Bool {
            switch self {
            case .reset, .resetStream: true
            case .goAway(let goAway): !goAway.isGraceful
            case .write, .writeThenClose, .delay, .hold, .live: false
            }
        }

        /// The answer is written now or later, as the route made it.
        public var writesAnswer: Bool {
            switch self {
            case .write, .writeThenClose, .delay: true
            case .goAway(let goAway): goAway.isGraceful
            case .reset, .resetStream, .hold, .live: false
            }
        }
    }
}
