// SPDX-License-Identifier: Apache-2.0

// HTTP v1 send: the input is the JSON body of POST /v1/projects/demo-fcm-emu/messages:send (the
// proto3 JSON decoder, validation, conditions, the delivery engine behind it).

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [("Authorization", "Bearer x"), ("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let body = Fuzz.bytes(start, count)
    let response = harness.call("POST", "/v1/projects/demo-fcm-emu/messages:send", headers: headers, body: body)
    Fuzz.check(response.status == 200 || response.status / 100 == 4, "v1 send answered \(response.status)")
    return 0
}
