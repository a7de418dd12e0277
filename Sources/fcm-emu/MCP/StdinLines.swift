// SPDX-License-Identifier: Apache-2.0

import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input as lines, the framing of MCP's stdio transport (the MCP specification,
/// 2025-06-18, "Transports", "stdio": messages delimited by newlines, none inside one). Read on
/// a thread of its own, so a blocking read holds no task's thread.
enum StdinLines {
    /// The longest line kept: a tool call's arguments are a few KiB (a message is at most
    /// `EmulatorTool.maxMessageBytes`).
    static let maxLine = 4 << 20

    enum Line: Sendable {
        case text([UInt8])
        /// A line past `maxLine`, skipped to its end.
        case tooLong
    }

    /// The lines of file descriptor `fd` until it ends.
    static func lines(_ fd: Int32 = 0) -> AsyncStream<Line> {
        AsyncStream { continuation in
            DispatchQueue.global().async {
                var pending: [UInt8] = []
                var skipping = false
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    var start = 0
                    while start < count {
                        let newline = buffer[start..<count].firstIndex(of: 0x0A)
                        let end = newline ?? count
                        if !skipping {
                            pending += buffer[start..<end]
                            if pending.count > maxLine {
                                skipping = true
                                pending = []
                                continuation.yield(.tooLong)
                            }
                        }
                        if newline != nil {
                            if !skipping { continuation.yield(.text(pending)) }
                            pending = []
                            skipping = false
                        }
                        start = end + 1
                    }
                }
                if !pending.isEmpty, !skipping { continuation.yield(.text(pending)) }
                continuation.finish()
            }
        }
    }
}
