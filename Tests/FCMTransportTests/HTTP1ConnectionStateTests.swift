// SPDX-License-Identifier: Apache-2.0

@testable import FCMTransport
import NIOCore
import NIOHTTP1
import Testing

/// `HTTP1ConnectionState`, transition by transition: each event in each state and what it tells
/// the handler to do (the rules are `HTTP1Connection`'s).
@Suite("HTTP/1.1 connection state: transitions and their actions")
struct HTTP1ConnectionStateTests {
    static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/x"))
    static let body = HTTPServerRequestPart.body(ByteBuffer(string: "abc"))
    static let end = HTTPServerRequestPart.end(nil)

    /// A state whose request has arrived whole and whose answer is owed.
    static func answering() -> HTTP1ConnectionState {
        var state = HTTP1ConnectionState()
        _ = state.received(head)
        _ = state.received(end)
        return state
    }

    /// Every `next()` until it says nil.
    static func drain(_ state: inout HTTP1ConnectionState) -> [HTTP1ConnectionState.Next] {
        var steps: [HTTP1ConnectionState.Next] = []
        while let step = state.next() { steps.append(step) }
        return steps
    }

    @Test func aRequestPassesAndItsEndHoldsReadsUntilItIsAnswered() {
        var state = HTTP1ConnectionState()
        #expect(state.readRequested() == true)
        #expect(state.received(Self.head) == .pass)
        #expect(state.cycle == .receiving(.owed))
        #expect(state.received(Self.body) == .pass)
        #expect(state.readRequested() == true, "a body still arriving is read")
        #expect(state.received(Self.end) == .pass)
        #expect(state.cycle == .answering(.owed))
        #expect(state.readRequested() == false)
        state.answerHeadWritten(closes: false)
        #expect(state.cycle == .answering(.begun))
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(state.cycle == .idle)
        #expect(Self.drain(&state) == [.read], "the held read is given back")
        #expect(state.readRequested() == true)
    }

    @Test func aPipelinedRequestWaitsAndPassesAfterTheAnswer() {
        var state = Self.answering()
        #expect(state.received(Self.head) == .wait)
        #expect(state.received(Self.body) == .wait)
        #expect(state.received(Self.end) == .wait)
        #expect(state.holdsReads)
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(state.next() == .pass(Self.head))
        #expect(state.next() == .pass(Self.body))
        #expect(state.next() == .pass(Self.end))
        #expect(state.cycle == .answering(.owed))
        #expect(state.next() == nil, "the next request owes an answer: nothing more passes")
    }

    /// An answer written while a waiting request is being passed on (a synchronous responder)
    /// does not start a second pass; the first carries on.
    @Test func anAnswerWrittenDuringAPassLetsThatPassCarryOn() {
        var state = Self.answering()
        for part in [Self.head, Self.end, Self.head, Self.end] { _ = state.received(part) }
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(state.next() == .pass(Self.head))
        #expect(state.next() == .pass(Self.end))
        #expect(state.answerEndWritten() == .write)
        #expect(state.next() == .pass(Self.head))
        #expect(state.next() == .pass(Self.end))
        #expect(state.next() == nil)
        #expect(state.answerEndWritten() == .writeThenNext, "a new pass once the last one ended")
    }

    @Test func aMalformedRequestIsRefusedAtOnceUnlessAnAnswerIsOwedBeforeIt() {
        var idle = HTTP1ConnectionState()
        #expect(idle.caught(HTTPParserError.invalidMethod) == .refuse(answerBegun: false))

        var receiving = HTTP1ConnectionState()
        _ = receiving.received(Self.head)
        receiving.answerHeadWritten(closes: true)
        #expect(receiving.caught(HTTPParserError.invalidChunkSize) == .refuse(answerBegun: true), "too late for a 400")

        var owed = Self.answering()
        #expect(owed.caught(HTTPParserError.invalidMethod) == .wait)
        #expect(owed.caught(ByteToMessageDecoderError.dataReceivedInErrorState(HTTPParserError.invalidMethod, ByteBuffer())) == .ignore)
        #expect(owed.caught(ChannelError.ioOnClosedChannel) == .pass)
        #expect(owed.holdsReads)
    }

    /// RFC 9112 §9.3.2: the requests before malformed bytes are answered, in order, then the 400.
    @Test func aMalformedRequestBehindWaitingOnesIsRefusedAfterThem() {
        var state = Self.answering()
        _ = state.received(Self.head)
        _ = state.received(Self.end)
        #expect(state.caught(HTTPParserError.invalidMethod) == .wait)
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(Self.drain(&state) == [.pass(Self.head), .pass(Self.end)])
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(Self.drain(&state) == [.refuse(.invalidMethod, answerBegun: false)])
        #expect(state.holdsReads == false)
    }

    /// RFC 9112 §9.6: after an answer that says `Connection: close`, nothing waiting is run and
    /// nothing new is read.
    @Test func aClosingAnswerDropsWhatWaitsAndWhatComes() {
        var state = Self.answering()
        _ = state.received(Self.head)
        state.answerHeadWritten(closes: true)
        #expect(state.ending == .closing)
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(Self.drain(&state).isEmpty)
        #expect(state.received(Self.head) == .drop)
        #expect(state.readRequested() == false)
    }

    @Test func quiescingClosesAnIdleConnectionAtOnceAndABusyOneAfterItsAnswer() {
        var idle = HTTP1ConnectionState()
        #expect(idle.quiesce() == true)

        var busy = Self.answering()
        _ = busy.received(Self.head)
        #expect(busy.quiesce() == false)
        #expect(busy.ending == .quiescing)
        #expect(busy.received(Self.head) == .drop)
        #expect(busy.answerEndWritten() == .writeThenClose)
    }

    /// Shutdown while a body arrives: it is read to its end and answered, then the connection
    /// closes; and when its answer went first (a refusal), it closes as the request ends.
    @Test func aQuiescingConnectionReadsTheRequestItIsReceiving() {
        var state = HTTP1ConnectionState()
        _ = state.received(Self.head)
        #expect(state.quiesce() == false)
        #expect(state.readRequested() == true)
        #expect(state.received(Self.body) == .pass)
        #expect(state.received(Self.end) == .pass)
        #expect(state.answerEndWritten() == .writeThenClose)

        var refused = HTTP1ConnectionState()
        _ = refused.received(Self.head)
        refused.answerHeadWritten(closes: false)
        #expect(refused.answerEndWritten() == .writeThenNext)
        #expect(refused.cycle == .receiving(.written))
        #expect(Self.drain(&refused).isEmpty)
        #expect(refused.quiesce() == false)
        #expect(refused.received(Self.body) == .pass)
        #expect(refused.received(Self.end) == .passThenClose)
    }

    /// An answer written before its request ended (a refused body): the rest is read and passed
    /// on, and the next request is read as one.
    @Test func anAnswerBeforeTheRequestEndsLetsTheRestArrive() {
        var state = HTTP1ConnectionState()
        _ = state.received(Self.head)
        state.answerHeadWritten(closes: false)
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(Self.drain(&state).isEmpty)
        #expect(state.readRequested() == true)
        #expect(state.received(Self.body) == .pass)
        #expect(state.received(Self.end) == .pass)
        #expect(state.cycle == .idle)
        #expect(state.received(Self.head) == .pass)
    }

    /// A tunnel taking over gets back the read that was held; what waited is gone.
    @Test func clearingGivesBackAHeldRead() {
        var state = Self.answering()
        _ = state.received(Self.head)
        #expect(state.readRequested() == false)
        #expect(state.clear() == true)
        #expect(state.clear() == false)
        #expect(state.answerEndWritten() == .writeThenNext)
        #expect(Self.drain(&state).isEmpty, "nothing waited any more")
    }
}
