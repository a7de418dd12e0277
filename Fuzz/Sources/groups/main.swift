// SPDX-License-Identifier: Apache-2.0

// Legacy device groups. An input is up to four requests separated by blank lines, played in
// order on a fresh world: a JSON body for POST /fcm/notification (create, add, remove) with the
// demo project's number in `project_id`; `?query` for GET /fcm/notification; `>`JSON for a group
// send on POST /fcm/send. `@KEY` in a request is replaced by the last notification_key issued, so
// a seed can create a group, change it and send to it.

import FCMCore
import FCMHTTP
import FCMJSON
import FuzzSupport

let harness = HTTPHarness.shared
let headers = [
    HTTPHarness.serverKeyAuthorization, ("Content-Type", "application/json"), ("project_id", DemoProject.number), ("Host", "127.0.0.1:9092"),
]
let marker = Array("@KEY".utf8)

/// The request with every `@KEY` replaced by `key`.
func substitute(_ bytes: [UInt8], _ key: String) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == marker[0], bytes[i...].starts(with: marker) {
            out += Array(key.utf8)
            i += marker.count
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    var key = "APA91bNoGroupYet"
    for request in Fuzz.requests(Fuzz.bytes(start, count)) {
        let bytes = substitute(request, key)
        switch bytes.first {
        case UInt8(ascii: "?"):
            // A request target holds no control bytes or spaces: that is the transport's business.
            guard !bytes.contains(where: { $0 < 0x21 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }) else { continue }
            harness.call("GET", "/fcm/notification" + String(decoding: bytes, as: UTF8.self), headers: headers, body: [])
        case UInt8(ascii: ">"):
            harness.call("POST", "/fcm/send", headers: headers, body: Array(bytes.dropFirst()))
        default:
            let response = harness.call("POST", "/fcm/notification", headers: headers, body: bytes)
            if response.status == 200, let issued = (try? JSONParser.parse(response.body))?["notification_key"]?.stringValue { key = issued }
        }
    }
    return 0
}
