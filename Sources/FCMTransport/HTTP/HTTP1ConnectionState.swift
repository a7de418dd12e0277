// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1

/// Where an HTTP/1.1 connection stands, as one value whose transitions return what
/// `HTTP1Connection` must do, in the shape of swift-nio's `HTTPServerPipelineHandler` (a cycle,
/// a lifecycle, the events held back, a held read). The rules it keeps are in `HTTP1Connection`'s
/// comment; the handler only carries out the actions, so each rule is tested here, transition by
/// transition, without a channel. No event traps in any state: one a state does not expect
/// changes nothing, or is taken as the nearest rule says.
struct HTTP1ConnectionState {
    /// The request being answered and its answer.
    enum Cycle: Equatable {
        /// No request is arriving and no answer is owed.
        case idle
        /// A request's head has been passed on and its end not yet.
        case receiving(Answer)
        /// A request has arrived whole and its answer's end is not written: nothing more is read.
        case answering(Answer)
    }

    /// How far the answer to the request in the cycle is written.
    enum Answer: Equatable {
        case owed
        /// Its head is written: a 400 for a malformed request would come too late.
        case begun
        /// All of it, before the request's end arrived (a refusal of a body too large).
        case written
    }

    /// How the connection ends. Either way no request after the one in the cycle is run.
    enum Ending: Equatable {
        case open
        /// The server is shutting down: the connection closes after its answer.
        case quiescing
        /// The answer says `Connection: close` (RFC 9112 §9.6); the handler behind closes.
        case closing
    }

    /// What arrived behind the request being answered, in the order it arrived (RFC 9112
    /// §9.3.2). A malformed request is last: the decoder reads nothing after it.
    enum Behind {
        case part(HTTPServerRequestPart)
        case malformed(HTTPParserError)
    }

    private(set) var cycle = Cycle.idle
    private(set) var ending = Ending.open
    private var behind = CircularBuffer<Behind>()
    /// A `read` held back until the connection may read again.
    private var readHeld = false
    /// `next()` is being followed: an answer written meanwhile does not start another pass.
    private var draining = false

    // MARK: Requests in

    enum Inbound: Equatable {
        /// Pass the part on.
        case pass
        /// Pass the part on, then close once what is being written has gone: the last request of
        /// a quiescing connection has ended, already answered.
        case passThenClose
        /// It waits behind the request being answered.
        case wait
        /// No request is run on an ending connection.
        case drop
    }

    mutating func received(_ part: HTTPServerRequestPart) -> Inbound {
        if ending != .open, !isReceiving { return .drop }
        if !behind.isEmpty {
            behind.append(.part(part))
            return .wait
        }
        if case .head = part, case .answering = cycle {
            behind.append(.part(part))
            return .wait
        }
        pass(part)
        return cycle == .idle && ending == .quiescing ? .passThenClose : .pass
    }

    /// The cycle as a part passed on moves it.
    private mutating func pass(_ part: HTTPServerRequestPart) {
        switch (part, cycle) {
        case (.head, _):
            cycle = .receiving(.owed)
        case (.end, .receiving(.written)):
            cycle = .idle
        case (.end, .receiving(let answer)):
            cycle = .answering(answer)
        case (.body, _), (.end, _):
            break
        }
    }

    enum Failure: Equatable {
        /// Answer NIO's 400 unless `answerBegun`, then pass the error on (the handler closes).
        case refuse(answerBegun: Bool)
        /// It waits behind the request being answered.
        case wait
        /// More bytes after malformed ones that wait: the decoder's complaint says nothing new.
        case ignore
        /// Not the decoder's: pass it on.
        case pass
    }

    mutating func caught(_ error: Error) -> Failure {
        guard let error = error as? HTTPParserError else {
            if case .malformed = behind.last, error is ByteToMessageDecoderError { return .ignore }
            return .pass
        }
        if case .malformed = behind.last { return .ignore }
        if case .answering = cycle {
            behind.append(.malformed(error))
            return .wait
        }
        if !behind.isEmpty {
            behind.append(.malformed(error))
            return .wait
        }
        return .refuse(answerBegun: cycle == .receiving(.begun))
    }

    private var isReceiving: Bool {
        if case .receiving = cycle { return true }
        return false
    }

    /// Nothing is read while a complete request's answer is owed (a client that pipelines
    /// without reading answers is read no faster than it is answered), while anything waits, or
    /// once the connection is ending and no request is arriving.
    var holdsReads: Bool {
        guard behind.isEmpty else { return true }
        switch cycle {
        case .receiving: return false
        case .answering: return true
        case .idle: return ending != .open
        }
    }

    /// Whether to read now; if not, the read is held and `next()` gives it back.
    mutating func readRequested() -> Bool {
        guard holdsReads else { return true }
        readHeld = true
        return false
    }

    /// The server is shutting down. Returns whether to close now, once what is being written
    /// has gone: nothing is arriving or owed.
    mutating func quiesce() -> Bool {
        ending = .quiescing
        behind.removeAll()
        return cycle == .idle
    }

    // MARK: Answers out

    mutating func answerHeadWritten(closes: Bool) {
        switch cycle {
        case .receiving(.owed): cycle = .receiving(.begun)
        case .answering(.owed): cycle = .answering(.begun)
        case .idle, .receiving, .answering: break
        }
        guard closes else { return }
        if ending == .open { ending = .closing }
        behind.removeAll()
    }

    enum AnswerEnd: Equatable {
        /// Write the answer and close once it has gone.
        case writeThenClose
        /// Write it, then follow `next()` until it says nil.
        case writeThenNext
        /// Write it; the pass already under way carries on.
        case write
    }

    mutating func answerEndWritten() -> AnswerEnd {
        switch cycle {
        case .receiving: cycle = .receiving(.written)
        case .answering, .idle: cycle = .idle
        }
        if ending == .quiescing {
            behind.removeAll()
            return .writeThenClose
        }
        guard !draining else { return .write }
        draining = true
        return .writeThenNext
    }

    enum Next: Equatable {
        case pass(HTTPServerRequestPart)
        /// Refuse the malformed request behind the answered ones, as `Failure.refuse`.
        case refuse(HTTPParserError, answerBegun: Bool)
        /// Give back the held read.
        case read
    }

    /// After an answer: what waited, up to the next request that owes one, then the malformed
    /// request behind them, or the read that was held. Nil when nothing is left to do.
    mutating func next() -> Next? {
        if let first = behind.first, mayPass(first) {
            behind.removeFirst()
            switch first {
            case .part(let part):
                pass(part)
                return .pass(part)
            case .malformed(let error):
                behind.removeAll()
                draining = false
                return .refuse(error, answerBegun: cycle == .receiving(.begun))
            }
        }
        if readHeld, !holdsReads {
            readHeld = false
            return .read
        }
        draining = false
        return nil
    }

    /// A part passes once nothing is owed, and the rest of a request passes while it arrives.
    private func mayPass(_ item: Behind) -> Bool {
        switch (cycle, item) {
        case (.idle, _): true
        case (.receiving, .part(.head)): false
        case (.receiving, _): true
        case (.answering, _): false
        }
    }

    /// A tunnel takes the connection over, or it has closed: nothing waiting will be passed on.
    /// Returns whether a read was held, which the tunnel now wants.
    mutating func clear() -> Bool {
        behind.removeAll()
        defer { readHeld = false }
        return readHeld
    }
}
