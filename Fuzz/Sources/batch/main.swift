// SPDX-License-Identifier: Apache-2.0

// The batch endpoint: the input is a multipart/mixed body for POST /batch. When it starts with
// `--`, its first line (without `--` and any CR) is the boundary, so seeds carry their own (the
// header quotes it when it holds characters a token cannot, as Python's email package does);
// otherwise the boundary is `__END_OF_PART__`, the one the Node and Go SDKs use.

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let tspecials = Set("()<>@,;:\\\"/[]?= ".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let bytes = Fuzz.bytes(start, count)
    var boundary = "__END_OF_PART__"
    if bytes.starts(with: [0x2D, 0x2D]) {
        var line = bytes.dropFirst(2).prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        // A header value cannot hold control bytes; such inputs are the transport's business.
        guard !line.isEmpty, line.count <= 200, line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 }) else { return 0 }
        let text = String(decoding: line, as: UTF8.self)
        boundary = line.contains(where: tspecials.contains) ? "\"\(text)\"" : text
    }
    let headers = [
        ("Authorization", "Bearer x"), ("Content-Type", "multipart/mixed; boundary=\(boundary)"), ("Host", "127.0.0.1:9092"),
    ]
    let response = harness.call("POST", "/batch", headers: headers, body: bytes)
    if response.status == 200 {
        let type = response.header("Content-Type") ?? ""
        Fuzz.check(type.hasPrefix("multipart/mixed; boundary="), "batch 200 answered with Content-Type \(type)")
        let answer = String(type.dropFirst("multipart/mixed; boundary=".count))
        Fuzz.check(response.bodyText.hasSuffix("--\(answer)--\r\n"), "batch 200 answer does not end with its boundary: \(Fuzz.preview(response.body))")
    }
    return 0
}
