// SPDX-License-Identifier: Apache-2.0

import Logging
import Synchronization

/// A log handler that keeps what it is given, so tests can read the lines a user would see.
public final class LogCapture: Sendable {
    public struct Line: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let lines = Mutex<[Line]>([])
    /// Told of each line as it is logged, for tests that await one.
    private let observer: (@Sendable (Line) -> Void)?

    public init(observer: (@Sendable (Line) -> Void)? = nil) {
        self.observer = observer
    }

    public var logged: [Line] { lines.withLock { $0 } }

    public func logger(level: Logger.Level = .debug) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: Line) {
        lines.withLock { $0.append(line) }
        observer?(line)
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(Line(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
