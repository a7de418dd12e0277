// SPDX-License-Identifier: Apache-2.0

// Snapshot import: the tar reader and every line reader behind it (manifest, world, projects,
// messages, devices, timers, tokens, topics, groups, events, credentials), then ordinary requests
// on whatever world was imported. An input is either a tar archive, the body of
// `POST /emulator/v1:import` as is, or, when it starts with `--- `, the files of a snapshot as
// sections (`--- NAME\n` then the file's bytes), which the harness packs into a tar, so that
// mutations reach the JSON lines without breaking the archive's framing. A refused snapshot
// must answer 4xx; one that imports must keep the emulator answering 2xx/4xx to a send, a clock
// advance, a device list and the event log, and must export and import again.

import FCMHTTP
import FuzzSupport

let harness = HTTPHarness.shared
let host = ("Host", "127.0.0.1:9092")
let json = [("Content-Type", "application/json"), host]
let sectionMark = Array("--- ".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { harness.reset() }
    let input = Fuzz.bytes(start, count)
    let archive = input.starts(with: sectionMark) ? Tar.pack(sections(input)) : input
    let imported = harness.call("POST", "/emulator/v1:import", headers: [("Content-Type", "application/x-tar"), host], body: archive)
    guard imported.status == 200 else {
        Fuzz.check(imported.status / 100 == 4, "import answered \(imported.status)")
        return 0
    }
    harness.call(
        "POST", "/v1/projects/demo-fcm-emu/messages:send", headers: [("Authorization", "Bearer x")] + json,
        body: Array(#"{"message":{"topic":"news","data":{"k":"v"}}}"#.utf8))
    harness.call("POST", "/emulator/v1/clock:advance", headers: json, body: Array(#"{"by":"29d"}"#.utf8))
    harness.call("GET", "/emulator/v1/projects/demo-fcm-emu/devices", headers: json, body: [])
    harness.call("GET", "/emulator/v1/events?limit=100", headers: json, body: [])
    let exported = harness.call("POST", "/emulator/v1:export?format=tar", headers: json, body: Array("{}".utf8))
    Fuzz.check(exported.status == 200, "an imported world did not export: \(exported.status) \(exported.bodyText)")
    let again = harness.call("POST", "/emulator/v1:import", headers: [("Content-Type", "application/x-tar"), host], body: exported.body)
    Fuzz.check(again.status == 200, "an emulator's own export did not import: \(again.status) \(again.bodyText)")
    return 0
}

/// `--- NAME\n` sections: (name, bytes) in order.
func sections(_ input: [UInt8]) -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    var rest = input[...]
    while rest.starts(with: sectionMark) {
        rest = rest.dropFirst(sectionMark.count)
        let nameEnd = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        let name = String(decoding: rest[..<nameEnd], as: UTF8.self)
        rest = rest[nameEnd...].dropFirst()
        var end = rest.endIndex
        var i = rest.startIndex
        while i < rest.endIndex {
            if rest[i] == 0x0A, rest[(i + 1)...].starts(with: sectionMark) {
                end = i + 1
                break
            }
            i += 1
        }
        out.append((name, Array(rest[..<end])))
        rest = rest[end...]
    }
    return out
}

/// A minimal ustar writer (POSIX.1-1988 `ustar` header: name, mode, size in octal, checksum).
enum Tar {
    static func pack(_ files: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, bytes) in files {
            var header = [UInt8](repeating: 0, count: 512)
            func put(_ text: String, at offset: Int, width: Int) {
                for (i, b) in text.utf8.prefix(width).enumerated() { header[offset + i] = b }
            }
            put(name, at: 0, width: 100)
            put("0000644", at: 100, width: 8)
            put("0000000", at: 108, width: 8)
            put("0000000", at: 116, width: 8)
            put(octal(bytes.count, width: 11), at: 124, width: 12)
            put("00000000000", at: 136, width: 12)
            put("        ", at: 148, width: 8)
            header[156] = UInt8(ascii: "0")
            put("ustar", at: 257, width: 6)
            put("00", at: 263, width: 2)
            let sum = header.reduce(0) { $0 + Int($1) }
            put(octal(sum, width: 6), at: 148, width: 6)
            header[154] = 0
            header[155] = 0x20
            out += header + bytes
            out += [UInt8](repeating: 0, count: (512 - bytes.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    static func octal(_ n: Int, width: Int) -> String {
        let digits = String(n, radix: 8)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
