// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One CCS stream's negotiation and stanza routing, as a pure state machine: each stream event
/// returns the actions to carry out, and the machine never touches the core, a channel or a
/// clock (as swift-nio's `Sources/NIOTLS/ProtocolNegotiationHandlerStateMachine.swift`: the data
/// valid in a state lives in that state). Credential lookup is injected, as Prosody injects it into
/// its SASL mechanisms (`util/sasl.lua`). The exchange: RFC 6120 (SASL, stream restart, bind) as
/// CCS runs it (docs/xmpp.md).
public struct XMPPSession: Sendable {
    public enum State: Equatable, Sendable {
        case awaitingStream
        case awaitingAuth
        /// SASL succeeded; the client must restart the stream (RFC 6120 §6.4.6).
        case awaitingRestart(sender: String)
        case awaitingBind(sender: String)
        case established(Established)
        case closed
    }

    /// A bound connection: CCS traffic flows.
    public struct Established: Equatable, Sendable {
        public let sender: String
        public let jid: String
        /// After CONNECTION_DRAINING, new downstream messages are nacked (the XMPP reference's control messages).
        public var draining = false

        public init(sender: String, jid: String, draining: Bool = false) {
            self.sender = sender
            self.jid = jid
            self.draining = draining
        }
    }

    public enum Action: Equatable, Sendable {
        case write(XMPPOutput)
        /// The stream is bound to `sender`: join its CCS traffic.
        case bound(sender: String, jid: String)
        /// A `<message>` on the established stream, for CCS to answer.
        case message(XMPPElement)
        /// CONNECTION_DRAINING was written: close the stream after the grace period.
        case drainStarted
        /// Why the session ends, for the log (it comes just before `close`).
        case ended(reason: String)
        case close
    }

    /// Whether `serverKey` logs `senderId` in (a project number, from any authcid form).
    public typealias Credentials = @Sendable (_ senderId: String, _ serverKey: String) -> Bool

    public private(set) var state = State.awaitingStream
    private let credentials: Credentials
    /// 16 hex digits, upper case, as the stream ids CCS sends.
    public static func randomStreamId() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private let streamId: @Sendable () -> String

    public init(
        credentials: @escaping Credentials,
        streamId: @escaping @Sendable () -> String = { XMPPSession.randomStreamId() }
    ) {
        self.credentials = credentials
        self.streamId = streamId
    }

    public var isDraining: Bool {
        if case .established(let established) = state { return established.draining }
        return false
    }

    public mutating func handle(_ event: XMPPStreamEvent) -> [Action] {
        switch (event, state) {
        case (_, .closed):
            return []  // whatever still arrives after the close is ignored
        case (.streamOpened, .awaitingStream):
            state = .awaitingAuth
            return [.write(.streamHeader(id: streamId())), .write(.features(.mechanisms))]
        case (.streamOpened, .awaitingRestart(let sender)):
            state = .awaitingBind(sender: sender)
            return [.write(.streamHeader(id: streamId())), .write(.features(.bind))]
        case (.stanza(let stanza), .awaitingAuth) where stanza.localName == "auth":
            return authenticate(stanza)
        case (.stanza(let stanza), .awaitingBind(let sender)) where stanza.localName == "iq" && stanza.child("bind") != nil:
            let resource = stanza.child("bind")?.child("resource")?.text ?? ""
            let jid = "\(sender)@\(XMPPOutput.domain)/\(resource.isEmpty ? "fcm-emu-" + streamId().lowercased() : resource)"
            state = .established(Established(sender: sender, jid: jid))
            return [.write(.bindResult(id: stanza.attribute("id") ?? "", jid: jid)), .bound(sender: sender, jid: jid)]
        case (.stanza(let stanza), .established(let established)):
            return routeEstablished(stanza, jid: established.jid)
        case (.stanza(let stanza), _) where stanza.localName == "presence":
            return []
        case (.streamClosed, _):
            state = .closed
            return [.write(.streamClose), .ended(reason: "stream closed"), .close]
        case (.stanza(let stanza), _):
            // Anything else before the session is established (RFC 6120 §6.3.10, §7.2).
            return fail(XMPPStreamError(condition: "not-authorized", text: "<\(stanza.localName)> before authentication"))
        case (.streamOpened, _):
            return fail(XMPPStreamError(condition: "invalid-xml", text: "unexpected stream header"))
        }
    }

    /// Starts draining: CONNECTION_DRAINING in the configured form; the transport closes later.
    public mutating func drain(prefixedForm: Bool) -> [Action] {
        guard case .established(var established) = state, !established.draining else { return [] }
        established.draining = true
        state = .established(established)
        return [.write(.ccs(CCSPayloads.connectionDraining, prefixed: prefixedForm)), .drainStarted]
    }

    /// The reply to a stream error found while framing, or to one found here.
    public mutating func fail(_ error: XMPPStreamError) -> [Action] {
        // RFC 6120 §4.9.1.1: a stream error before the server's header for this stream follows
        // a header of its own. After SASL success the client's restart opens a new stream that
        // the server has not answered yet, so that state needs one too.
        let needsHeader: Bool
        switch state {
        case .closed: return []
        case .awaitingStream, .awaitingRestart: needsHeader = true
        case .awaitingAuth, .awaitingBind, .established: needsHeader = false
        }
        state = .closed
        let ending: [Action] = [.write(.streamError(error)), .ended(reason: "stream error \(error)"), .close]
        return (needsHeader ? [.write(.streamHeader(id: streamId()))] : []) + ending
    }

    /// SASL PLAIN: `\0authcid\0password`, with the sender id as `SENDER@fcm.googleapis.com`,
    /// `SENDER@gcm.googleapis.com` or bare (go-xmpp strips the domain), and the project's server key
    /// (docs/xmpp.md).
    private mutating func authenticate(_ stanza: XMPPElement) -> [Action] {
        guard stanza.attribute("mechanism") == "PLAIN" else { return refuse("invalid-mechanism") }
        guard let decoded = Data(base64Encoded: stanza.text.trimming()) else {
            return refuse("incorrect-encoding")
        }
        let parts = decoded.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 3, let sender = parts[1].split(separator: "@").first.map(String.init), credentials(sender, parts[2]) else {
            return refuse("not-authorized")
        }
        state = .awaitingRestart(sender: sender)
        return [.write(.saslSuccess)]
    }

    private mutating func refuse(_ condition: String) -> [Action] {
        state = .closed
        return [.write(.saslFailure(condition: condition)), .ended(reason: "login refused: \(condition)"), .close]
    }

    private func routeEstablished(_ stanza: XMPPElement, jid: String) -> [Action] {
        switch stanza.localName {
        case "iq":
            // Sessions (RFC 3921) and pings (XEP-0199) get a bare result; other IQs an error.
            let id = stanza.attribute("id") ?? ""
            if stanza.child("session") != nil || stanza.child("ping") != nil { return [.write(.iqResult(id: id, to: jid))] }
            return [.write(.iqUnavailable(id: id))]
        case "message":
            return [.message(stanza)]
        default:
            return []
        }
    }
}
