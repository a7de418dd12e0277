// SPDX-License-Identifier: Apache-2.0

// The control API. An input is up to four requests separated by blank lines, played in order on
// a fresh world. A request is the JSON body of POST /emulator/v1/projects/demo-fcm-emu/devices,
// or, when its first line is a method, a space and a path (`PATCH /projects/…`), a call to that
// route under /emulator/v1 with the rest as its body; so seeds reach every control route
// (devices, topics, faults, the clock, projects) and can combine them. No route may answer 5xx.

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [("Content-Type", "application/json"), ("Host", "127.0.0.1:9092")]
let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    for request in Fuzz.requests(Fuzz.bytes(start, count)) {
        var method = "POST"
        var target = "/emulator/v1/projects/demo-fcm-emu/devices"
        var body = request
        if let (line, rest) = Fuzz.split(request, at: 0x0A) ?? (request.contains(0x20) ? (request, []) : nil),
            let space = line.firstIndex(of: 0x20), methods.contains(String(decoding: line[..<space], as: UTF8.self))
        {
            let path = line[(space + 1)...]
            // A request target holds no control bytes or spaces: that is the transport's business.
            guard path.first == UInt8(ascii: "/"), path.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { continue }
            method = String(decoding: line[..<space], as: UTF8.self)
            target = "/emulator/v1" + String(decoding: path, as: UTF8.self)
            body = rest
        }
        harness.call(method, target, headers: headers, body: body)
    }
    return 0
}
