// SPDX-License-Identifier: Apache-2.0

import FCMJSON
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
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
            pairs.append((key, merged[key].map(Self.json) ?? .null))
        }
        StandardStreams.writeError(JSONValue.object(pairs).encoded() + "\n")
    }

    /// A number or a boolean given as a value (`.stringConvertible(200)`) stays one, so a
    /// collector can sum and compare it; text stays text.
    static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(text)
        case .stringConvertible(let item):
            switch item {
            case let bool as Bool: return .bool(bool)
            case let number as any BinaryInteger: return .number("\(number)")
            case let number as Double where number.isFinite: return .number("\(number)")
            default: return .string(item.description)
            }
        case .array(let items): return .array(items.map(json))
        case .dictionary(let entries): return .object(entries.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
