// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// One CCS connection's whole life, from the first byte to the disconnect: bytes go in through
/// the framer and the session; logins, CCS messages, acks, the outbox and drains go through the
/// core; text comes out. The NIO handler and the scenario runner both drive this one type, so a
/// scenario exercises exactly what a TCP client reaches. It does no I/O and keeps no timers:
/// effects tell the transport what to write, when to close, and what to schedule.
public struct CCSConnection: Sendable {
    public struct Configuration: Sendable {
        public var laxAuth = false
        public var maxStanzaBytes = XMPPFramer.defaultMaxStanzaBytes
        /// Nacks and control messages as `<data:gcm xmlns:data=…>` (the reference's form); off, `<gcm>`.
        public var prefixedForm = true

        public init(laxAuth: Bool = false, maxStanzaBytes: Int = XMPPFramer.defaultMaxStanzaBytes, prefixedForm: Bool = true) {
            self.laxAuth = laxAuth
            self.maxStanzaBytes = maxStanzaBytes
            self.prefixedForm = prefixedForm
        }
    }

    public enum Effect: Equatable, Sendable {
        case write(String)
        /// The stream is bound to the project's CCS traffic: wake `pump()` when the project has
        /// work, and start keepalives and any scheduled drain.
        case joined(projectId: String, connection: Int)
        /// CONNECTION_DRAINING was sent: call `finishDraining()` after the grace period.
        case drainStarted
        /// Why the session ends, for the transport's log.
        case ended(reason: String)
        case close
        /// A downstream message was nacked or answered with a stanza error (already recorded as a
        /// `refused` event), for the transport's log.
        case refused(Refusal)
    }

    /// The core's handle for this connection once bound, and the drain requests it has honoured.
    private struct Binding: Sendable {
        let connection: Int
        let projectId: String
        var drainsSeen: Int
    }

    private var framer: XMPPFramer
    private var session: XMPPSession
    private let handler: CCSHandler
    private let emulator: Emulator
    private let configuration: Configuration
    private var binding: Binding?

    public init(emulator: Emulator, configuration: Configuration) {
        self.emulator = emulator
        self.configuration = configuration
        framer = XMPPFramer(maxStanzaBytes: configuration.maxStanzaBytes)
        handler = CCSHandler(emulator: emulator, prefixedForm: configuration.prefixedForm)
        let lax = configuration.laxAuth
        session = XMPPSession { sender, key in
            guard let project = try? emulator.project(sender) else { return false }
            return lax || project.id.hasPrefix("demo-") || project.serverKeys.contains(key)
        }
    }

    public var state: XMPPSession.State { session.state }
    public var projectId: String? { binding?.projectId }
    public var connection: Int? { binding?.connection }

    /// Bytes from the client (a connection without a pipeline: scenarios, fuzzers).
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Effect] {
        do {
            var effects: [Effect] = []
            for event in try framer.feed(bytes) { effects += receive(event) }
            return effects
        } catch {
            return fail(error)
        }
    }

    /// An event `XMPPStreamDecoder` read from the client.
    public mutating func receive(_ event: XMPPStreamEvent) -> [Effect] {
        perform(session.handle(event))
    }

    /// The client broke the stream's rules: the server answers with a stream error and closes.
    public mutating func fail(_ error: XMPPStreamError) -> [Effect] {
        perform(session.fail(error))
    }

    /// Sends what the core holds for this connection (upstream messages, receipts) and honours
    /// drain requests; the transport calls it whenever the core says the project has CCS work.
    public mutating func pump() -> [Effect] {
        guard let binding else { return [] }
        var effects: [Effect] = []
        let drains = emulator.drainRequests(projectId: binding.projectId)
        if drains > binding.drainsSeen {
            self.binding?.drainsSeen = drains
            effects += drain()
        }
        guard case .established(let established) = session.state else { return effects }
        for item in emulator.ccsTake(binding.connection) {
            effects.append(.write(XMPPOutput.toAppServer(item.json, sender: established.sender).text))
        }
        return effects
    }

    /// CONNECTION_DRAINING (the XMPP reference's control messages): new downstream messages are nacked from now on.
    public mutating func drain() -> [Effect] {
        let effects = perform(session.drain(prefixedForm: configuration.prefixedForm))
        if effects.contains(.drainStarted), let binding { emulator.ccsDraining(binding.connection) }
        return effects
    }

    /// The drain's grace period is over: the server closes the stream.
    public mutating func finishDraining() -> [Effect] {
        guard session.state != .closed else { return [] }
        return perform(session.handle(.streamClosed))
    }

    /// The client was silent too long, or did not log in in time: `connection-timeout`
    /// (RFC 6120 §4.9.3.4), then the close.
    public mutating func timedOut(_ what: String) -> [Effect] {
        perform(session.fail(XMPPStreamError(condition: "connection-timeout", text: what)))
    }

    /// The server is stopping: `system-shutdown` (RFC 6120 §4.9.3.17), then the close; an
    /// already closed stream just closes.
    public mutating func shuttingDown() -> [Effect] {
        let ending = perform(session.fail(XMPPStreamError(condition: "system-shutdown", text: "the emulator is stopping")))
        return ending.isEmpty ? [.close] : ending
    }

    /// The transport closed: what the connection held un-acked goes to the next one.
    public mutating func disconnect() {
        guard let binding else { return }
        self.binding = nil
        emulator.ccsDisconnect(binding.connection)
    }

    private mutating func perform(_ actions: [XMPPSession.Action]) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .write(let output): effects.append(.write(output.text))
            case .close: effects.append(.close)
            case .drainStarted: effects.append(.drainStarted)
            case .ended(let reason): effects.append(.ended(reason: reason))
            case .bound(let sender, _): effects += join(sender: sender)
            case .message(let stanza): effects += message(stanza)
            }
        }
        return effects
    }

    private mutating func join(sender: String) -> [Effect] {
        guard let (connection, projectId) = try? emulator.ccsConnect(sender: sender) else { return [] }
        binding = Binding(connection: connection, projectId: projectId, drainsSeen: emulator.drainRequests(projectId: projectId))
        return [.joined(projectId: projectId, connection: connection)] + pump()
    }

    private mutating func message(_ stanza: XMPPElement) -> [Effect] {
        guard case .established(let established) = session.state else { return [] }
        // A drain fault fires on the message that matches it, which is then nacked as draining.
        let drained = handler.drainFault(stanza, sender: established.sender) ? drain() : []
        let outputs: [XMPPOutput]
        var refusals: [Refusal] = []
        switch CCSHandler.payload(of: stanza, jid: established.jid) {
        case .refused(let output):
            outputs = [output]
            if case .stanzaError(_, _, let text) = output { refusals.append(CCSHandler.parsingRefusal(text, sender: established.sender)) }
        case .json(let json):
            outputs = handler.handle(
                json, stanza: stanza, sender: established.sender, jid: established.jid, connection: binding?.connection,
                draining: session.isDraining, refusals: &refusals
            )
        }
        emulator.recordRefusals(refusals)
        return drained + outputs.map { .write($0.text) } + refusals.map { .refused($0) }
    }
}
