// SPDX-License-Identifier: Apache-2.0

// Legacy HTTP, plain text: the input is the url-encoded form body of POST /fcm/send
// (`registration_id=…&data.key=…&collapse_key=…`), as python-gcm and old Java clients send it.

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [
    HTTPHarness.serverKeyAuthorization, ("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"), ("Host", "127.0.0.1:9092"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    harness.call("POST", "/fcm/send", headers: headers, body: Fuzz.bytes(start, count))
    return 0
}
