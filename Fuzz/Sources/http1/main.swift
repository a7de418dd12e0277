// SPDX-License-Identifier: Apache-2.0

// The plain port's HTTP/1.1 pipeline without a socket (FCMTesting's HTTP1Wire: the request decoder,
// HTTP1Connection, the request handler, the emulator's routes): the input is a client's byte
// stream, pipelined requests and all. The first byte picks how it is cut into reads: 0 feeds it
// one byte at a time, any other value splits it once, at that fraction of its length (the
// decoder's and the connection's partial paths). Checks:
// - nothing crashes;
// - what the server writes is answers: it begins with a status line's `HTTP/`;
// - nothing is written once the connection has closed;
// - the emulator's request decoder reads the stream as llhttp alone does: the same parts, the
//   same first error (FCMTesting's HTTP1DecoderComparison).

import FCMTesting
import FuzzSupport

let harness = HTTPHarness.shared

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let bytes = Fuzz.bytes(start, count)
    guard let mode = bytes.first else { return 0 }
    let stream = bytes.dropFirst()
    let chunks = Fuzz.reads(stream, cut: mode)
    let wire: HTTP1Wire
    do { wire = try HTTP1Wire(responder: harness.responder) } catch { Fuzz.fail("the pipeline was not built: \(error)") }
    let (ours, llhttp) = HTTP1DecoderComparison.compare(chunks)
    Fuzz.check(ours == llhttp, "the decoder's reading differs from llhttp's: \(ours) against \(llhttp)")
    var written: [UInt8] = []
    for chunk in chunks {
        let wasOpen = wire.isOpen
        let out = wire.feed(chunk)
        Fuzz.check(wasOpen || out.isEmpty, "\(out.count) bytes written after the connection closed")
        written += out
    }
    written += wire.close()
    if !written.isEmpty {
        Fuzz.check(written.starts(with: Array("HTTP/".utf8)), "the server's first bytes are no status line: \(written.prefix(16))")
    }
    return 0
}
