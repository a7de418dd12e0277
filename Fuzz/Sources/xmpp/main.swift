// SPDX-License-Identifier: Apache-2.0

// The XMPP connection server without a socket: the input is a client's byte stream (stream
// header, SASL PLAIN, bind, CCS messages, acks, close). The first byte picks how it is cut into
// reads: 0 feeds it one byte at a time, any other value splits it once, at that fraction of its
// length (the framer's incremental paths). Checks:
// - XMPPFramer yields the same events, or fails with the same condition, however it is cut;
// - CCSConnection (framer, session, CCS handler, the core) never writes after it closed, driven as
//   the NIO handler drives it (pump after each read; finishDraining only after drainStarted);
// - whatever the server writes is itself a well-formed XMPP stream by the framer's rules
//   (FCM_FUZZ_SKIP=echo skips that check while it is a known bug).

import FCMCore
import FCMXMPP
import FuzzSupport

let harness = HTTPHarness.shared
let configuration = CCSConnection.Configuration()
/// FCM_FUZZ_VERBOSE=1 prints every effect, to read a reproducer's conversation.
let verbose = Fuzz.flag("FCM_FUZZ_VERBOSE")
let checkEcho = !Fuzz.skips("echo")

/// The framer's events for `chunks`, or the condition it failed with.
func frame(_ chunks: [ArraySlice<UInt8>]) -> ([XMPPStreamEvent], String?) {
    var framer = XMPPFramer()
    var events: [XMPPStreamEvent] = []
    for chunk in chunks {
        do { events += try framer.feed(chunk) } catch { return (events, error.condition) }
    }
    return (events, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Fuzz.bytes(start, count)
    guard let mode = bytes.first else { return 0 }
    let stream = bytes.dropFirst()
    let chunks = Fuzz.reads(stream, cut: mode)

    // The framer alone: cutting must not change what it finds.
    let whole = frame([stream])
    let cutUp = frame(chunks)
    if let condition = whole.1 {
        Fuzz.check(cutUp.1 == condition, "framer failed with \(condition) whole but \(cutUp.1 ?? "nothing") cut at mode \(mode): \(Fuzz.preview(stream))")
    } else {
        Fuzz.check(cutUp.1 == nil, "framer failed with \(cutUp.1 ?? "") only when cut (mode \(mode)): \(Fuzz.preview(stream))")
        Fuzz.check(cutUp.0 == whole.0, "framer events differ when cut (mode \(mode)): \(Fuzz.preview(stream))")
    }

    // A whole connection over the shared emulator (the fixture devices live in the demo project),
    // which starts every input afresh.
    defer { harness.reset() }
    var connection = CCSConnection(emulator: harness.emulator, configuration: configuration)
    var closed = false
    var draining = false
    var written: [UInt8] = []
    func apply(_ effects: [CCSConnection.Effect], _ step: String) {
        for effect in effects {
            if verbose { Fuzz.log("[\(step)] \(effect)") }
            switch effect {
            case .write(let text):
                Fuzz.check(!closed, "wrote after close (\(step)): \(text) for \(Fuzz.preview(stream))")
                written += Array(text.utf8)
            case .close: closed = true
            case .drainStarted: draining = true
            default: break  // joined, ended, and whatever the transport alone cares about
            }
        }
    }
    for chunk in chunks {
        apply(connection.receive(chunk), "receive")
        apply(connection.pump(), "pump")
    }
    if mode & 1 == 1 {
        // An odd first byte also drains the connection, as `xmpp:drain` or the schedule would.
        apply(connection.drain(), "drain")
        apply(connection.pump(), "pump after drain")
        // The transport calls finishDraining only once CONNECTION_DRAINING went out.
        if draining { apply(connection.finishDraining(), "finishDraining") }
    }
    connection.disconnect()

    // The server's side of the conversation must be a stream the framer itself accepts.
    if checkEcho, !written.isEmpty {
        let echo = frame([written[...]])
        Fuzz.check(echo.1 == nil, "the server wrote XML its own framer refuses (\(echo.1 ?? "")): \(Fuzz.preview(written, limit: 2000)) for input \(Fuzz.preview(stream))")
    }
    return 0
}
