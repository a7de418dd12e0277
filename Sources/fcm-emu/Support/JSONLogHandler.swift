// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import Logging

/// `--log-format json`: one JSON object per line on standard error, for log collectors:
/// `{"time":"…","level":"info","label":"fcm-emu","message":"…", …metadata}`.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var pairs: [(String, JSONValue)] = [
            ("time", .string(Self.timestamp())), ("level", .string(event.level.rawValue)), ("label", .string(label)),
            ("message", .string(event.message.description)),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            pairs.append((key, .string(merged[key].map { "\($0)" } ?? "")))
        }
        FileHandle.standardError.write(Data((JSONValue.object(pairs).encoded() + "\n").utf8))
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
