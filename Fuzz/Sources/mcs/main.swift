// SPDX-License-Identifier: Apache-2.0

// The receiver side's binary protocols (docs/receivers.md). The first byte picks the parser:
// - `C`: the rest is an Android check-in request (protobuf) to POST /checkin, then a form to
//   /c2dm/register3 with the check-in's own credentials;
// - anything else: the rest is a client's MCS byte stream (version byte, tagged and
//   varint-framed protobuf messages), every frame decoded and written back (`MCSWire`).
// Checks: nothing crashes, and a check-in answers 200, 400 or 401 only.

import FCMHTTP
import FCMMCS
import FuzzSupport

let harness = HTTPHarness.shared
let host = ("Host", "android.clients.google.com")

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let bytes = Fuzz.bytes(start, count)
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    if mode == UInt8(ascii: "C") {
        let answer = harness.call("POST", "/checkin", headers: [host, ("Content-Type", "application/x-protobuf")], body: rest)
        Fuzz.check([200, 400, 401].contains(answer.status), "check-in answered \(answer.status): \(answer.bodyText)")
        harness.call(
            "POST", "/c2dm/register3", headers: [host, ("Authorization", "AidLogin 1:2"), ("Content-Type", "application/x-www-form-urlencoded")],
            body: rest)
    } else {
        _ = MCSWire.decodeAll(rest, maxFrameBytes: 8192)
    }
    return 0
}
