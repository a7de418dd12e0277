// SPDX-License-Identifier: Apache-2.0

/// Which API a call came through, for matching fault rules.
package enum FaultAPI: String, Sendable, CaseIterable {
    case v1, legacy, iid, batch, oauth, xmpp
}

/// A scripted fault: when a call matches, the emulator misbehaves as told
/// (the fault injector sits between transport and fronts: Sources/README.md, docs/faults.md).
public struct FaultRule: Sendable, Equatable {
    package var id: String
    package var match: Match
    package var action: Action
    /// The rule in the words its author posted, so `GET /faults` and the `faultInjected` event
    /// answer in them (`QUOTA_EXCEEDED`, `"retryAfter": "10s"`) rather than in the core's;
    /// nil for rules made in code.
    package var posted: Posted?

    /// A posted rule: its `match` and `action` as JSON text (the fields' sizes are capped by the
    /// codec) and the action in words (`status 503, retryAfter 10s`).
    package struct Posted: Sendable {
        package var json: String
        package var summary: String

        package init(json: String, summary: String) {
            self.json = json
            self.summary = summary
        }
    }

    package init(id: String, match: Match = Match(), action: Action, posted: Posted? = nil) {
        self.id = id
        self.match = match
        self.action = action
        self.posted = posted
    }

    /// Rules are the same when they match and act the same, however they were spelt.
    public static func == (a: FaultRule, b: FaultRule) -> Bool {
        a.id == b.id && a.match == b.match && a.action == b.action
    }

    /// What the rule does, in words: the author's when posted.
    package var summary: String { posted?.summary ?? action.summary }

    /// Every set field must hold. Counting fields (`nth`, `every`, `count`) count the calls that
    /// matched everything else.
    package struct Match: Sendable, Equatable {
        package var api: FaultAPI?
        /// A substring of the request path (`messages:send`, `/fcm/send`).
        package var route: String?
        /// A project id or number.
        package var project: String?
        /// A token, topic or condition the call names (found in its body).
        package var target: String?
        /// A device id or name; matches calls naming any token the device holds or held.
        package var device: String?
        /// Only the nth matching call (1 = the first).
        package var nth: Int?
        /// Every k-th matching call.
        package var every: Int?
        /// A chance per matching call, drawn from the emulator's seeded generator.
        package var probability: Double?
        /// Only while the emulator's clock is in [from, until).
        package var from: Instant?
        package var until: Instant?
        /// At most this many times in all.
        package var count: Int?

        package init(
            api: FaultAPI? = nil, route: String? = nil, project: String? = nil, target: String? = nil, device: String? = nil,
            nth: Int? = nil, every: Int? = nil, probability: Double? = nil, from: Instant? = nil, until: Instant? = nil, count: Int? = nil
        ) {
            self.api = api
            self.route = route
            self.project = project
            self.target = target
            self.device = device
            self.nth = nth
            self.every = every
            self.probability = probability
            self.from = from
            self.until = until
            self.count = count
        }
    }

    public enum Action: Sendable, Equatable {
        /// The service refuses the message with this error, in the calling API's dialect
        /// (v1 status and FcmError, legacy result name, XMPP nack code).
        case error(FCMError.Code, retryAfterSeconds: Int64?)
        /// The HTTP front answers with this status (and `Retry-After`) before reading the request.
        case status(Int, retryAfterSeconds: Int64?)
        /// The answer is held back this long.
        case latency(millis: Int64)
        /// The connection is dropped without an answer.
        case reset
        /// Google's front end answers with its HTML 502 page.
        case html502
        /// An XMPP connection gets CONNECTION_DRAINING (and the message that matched is nacked so).
        case drain
        /// The call is served as usual (the message is accepted and delivered), then the answer is
        /// replaced by this status, or by a dropped connection when `status` is nil: a sender that
        /// retries such an answer blindly notifies its user twice.
        case deliverThenFail(status: Int?, retryAfterSeconds: Int64?)
        /// HTTP/2: the connection gets a GOAWAY frame (RFC 9113 §6.8). `errorCode` 0 (NO_ERROR) is
        /// graceful: the call is answered, no new stream is accepted, and the connection closes once
        /// its streams end. Any other code (RFC 9113 §7) is an error: the call is not answered, the
        /// frame names the stream before it as the last processed, and the connection closes.
        /// `debugData` is the frame's opaque data (FCM's front end writes a reason there, such as
        /// `exceeded_max_concurrent_streams`). On HTTP/1.1, graceful is `Connection: close` after
        /// the answer and an error is a dropped connection.
        case goAway(errorCode: UInt32, debugData: String?)
        /// A new TLS connection's handshake waits this long before the emulator reads the
        /// ClientHello (emulator time, as latency is). It matches connections, not calls.
        case slowHandshake(millis: Int64)
        /// HTTP/2: the call's stream is reset with RST_STREAM and this code (RFC 9113 §6.4, §7)
        /// instead of an answer, and the connection's other streams go on: the shape of the
        /// stream errors firebase-admin-node reports (`ERR_HTTP2_STREAM_ERROR`). The call is not
        /// served. HTTP/1.1 has no stream to reset: the connection is dropped, as `reset` drops it.
        case rstStream(errorCode: UInt32)
        /// The call is never answered: its stream (its HTTP/1.1 connection) stays open until the
        /// client gives up (RST_STREAM, or the connection closes) or the connection's idle timeout,
        /// while the connection's other streams are served. The call is not served.
        case hold

        /// The action in words, for rules made in code (`error unavailable, retryAfter 10s`).
        package var summary: String {
            func retry(_ seconds: Int64?) -> String { seconds.map { ", retryAfter \($0)s" } ?? "" }
            switch self {
            case .error(let code, let seconds): return "error \(code.rawValue)\(retry(seconds))"
            case .status(let status, let seconds): return "status \(status)\(retry(seconds))"
            case .latency(let millis): return "latency \(millis)ms"
            case .goAway(let code, _): return "goaway \(FaultRule.goAwayName(code))"
            case .slowHandshake(let millis): return "slowHandshake \(millis)ms"
            case .rstStream(let code): return "rstStream \(FaultRule.http2ErrorName(code))"
            default:
                // The other actions carry no more than their name (or a few words the codec knows).
                let text = String(describing: self)
                return String(text.prefix { $0 != "(" })
            }
        }

        /// Whether the transport applies it (the rest are the core's).
        package var isTransport: Bool {
            if case .error = self { return false }
            return true
        }

        /// Whether it acts on a connection's TLS handshake, before any call can be matched.
        package var isHandshake: Bool {
            if case .slowHandshake = self { return true }
            return false
        }
    }
}

extension FaultRule {
    /// HTTP/2's error codes by name (RFC 9113 §7), for `goaway` and `rstStream` actions; a
    /// `goaway` says `graceful` for NO_ERROR.
    package static let http2ErrorCodes: [(name: String, code: UInt32)] = [
        ("NO_ERROR", 0x0), ("PROTOCOL_ERROR", 0x1), ("INTERNAL_ERROR", 0x2), ("FLOW_CONTROL_ERROR", 0x3),
        ("SETTINGS_TIMEOUT", 0x4), ("STREAM_CLOSED", 0x5), ("FRAME_SIZE_ERROR", 0x6), ("REFUSED_STREAM", 0x7),
        ("CANCEL", 0x8), ("COMPRESSION_ERROR", 0x9), ("CONNECT_ERROR", 0xa), ("ENHANCE_YOUR_CALM", 0xb),
        ("INADEQUATE_SECURITY", 0xc), ("HTTP_1_1_REQUIRED", 0xd),
    ]

    /// `graceful` for NO_ERROR, else the code's name (or its number when it has none).
    package static func goAwayName(_ code: UInt32) -> String {
        code == 0 ? "graceful" : http2ErrorName(code)
    }

    /// The code's name (RFC 9113 §7), or its number when it has none.
    package static func http2ErrorName(_ code: UInt32) -> String {
        http2ErrorCodes.first { $0.code == code }?.name ?? String(code)
    }
}

/// What a call offers for matching.
package struct FaultContext: Sendable {
    package var api: FaultAPI
    package var route: String
    /// Project ids or numbers the call is for.
    package var projects: [String]
    /// Text in which targets are searched (the body, or the target itself).
    package var text: String
    /// Tokens the call names directly.
    package var tokens: [String]

    package init(api: FaultAPI, route: String = "", projects: [String] = [], text: String = "", tokens: [String] = []) {
        self.api = api
        self.route = route
        self.projects = projects
        self.text = text
        self.tokens = tokens
    }
}
