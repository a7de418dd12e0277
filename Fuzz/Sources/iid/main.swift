// SPDX-License-Identifier: Apache-2.0

// Instance ID topic management: the input is the JSON body of POST /iid/v1:batchAdd
// (`{"to":"/topics/news","registration_tokens":[…]}`); one starting with `R` goes to
// :batchRemove instead (the rest is the body).

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [HTTPHarness.serverKeyAuthorization, ("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let bytes = Fuzz.bytes(start, count)
    if bytes.first == UInt8(ascii: "R") {
        harness.call("POST", "/iid/v1:batchRemove", headers: headers, body: Array(bytes.dropFirst()))
    } else {
        harness.call("POST", "/iid/v1:batchAdd", headers: headers, body: bytes)
    }
    return 0
}
