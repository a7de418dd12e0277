// SPDX-License-Identifier: Apache-2.0

// Legacy HTTP, JSON: the input is the body of POST /fcm/send (`to`, `registration_ids`,
// `condition`, the typed legacy fields) with the demo project's server key.

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [HTTPHarness.serverKeyAuthorization, ("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    harness.call("POST", "/fcm/send", headers: headers, body: Fuzz.bytes(start, count))
    return 0
}
