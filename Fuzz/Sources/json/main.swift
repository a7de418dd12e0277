// SPDX-License-Identifier: Apache-2.0

// JSONParser: parse; whatever parses must re-encode (compact and pretty) to text that parses back
// to an equal value. A second check builds `JSONValue.double` from the input's first 8 bytes: its
// text must be valid JSON too (FCM_FUZZ_SKIP=double skips that check while it is a known bug).

import FCMJSON
import FuzzSupport

let checkDoubles = !Fuzz.skips("double")

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Fuzz.bytes(start, count)
    if let value = try? JSONParser.parse(bytes) {
        for layout in [JSONValue.Layout.compact, .pretty] {
            let text = value.encoded(layout)
            do {
                let again = try JSONParser.parse(text)
                Fuzz.check(again == value, "round trip (\(layout)) changed the value: \(Fuzz.preview(bytes)) → \(text)")
            } catch {
                Fuzz.fail("re-encoded (\(layout)) document does not parse (\(error)): \(Fuzz.preview(bytes)) → \(text)")
            }
        }
    }
    // Strings: a string value's encoding reparses to the same string (escaping of any scalar).
    let string = String(decoding: bytes, as: UTF8.self)
    let encoded = JSONValue.string(string).encoded()
    Fuzz.check((try? JSONParser.parse(encoded)) == .string(string), "string does not round-trip: \(Fuzz.preview(bytes))")
    if checkDoubles, bytes.count >= 8 {
        var bits: UInt64 = 0
        for b in bytes.prefix(8) { bits = bits << 8 | UInt64(b) }
        let text = JSONValue.double(Double(bitPattern: bits)).encoded()
        Fuzz.check((try? JSONParser.parse(text)) != nil, "JSONValue.double(\(Double(bitPattern: bits))) encodes as invalid JSON: \(text)")
    }
    return 0
}
