// SPDX-License-Identifier: Apache-2.0

import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `--ready-file`: written atomically once the emulator listens, so a harness that polls for
/// it never reads half a file; removed on a clean stop.
enum ReadyFile {
    static func write(_ info: JSONValue, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        try (info.encoded(.pretty) + "\n").write(toFile: temporary, atomically: false, encoding: .utf8)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
