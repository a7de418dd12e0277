// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
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

/// Files `exec` and `env` hand to a command: a private directory with a
/// name nobody could have taken first, and files written as new regular files and renamed into
/// place, so a link or file planted at a destination is replaced, never written through.
enum PrivateFiles {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The most a bundle or a Java store read from the user's machine may hold.
    static let readLimit = 64 << 20

    /// A fresh directory `<parent>/<prefix>XXXXXX` (a random name made by `mkdtemp`, mode 0700;
    /// never one that already exists).
    static func makeDirectory(in parent: String = FilePaths.temporaryDirectory, prefix: String) throws -> String {
        let base = parent.hasSuffix("/") ? parent : parent + "/"
        var template = Array((base + prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw Failure(description: "cannot make a private directory in \(parent): \(errorText())") }
        return template.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Writes `bytes` to `path` with `mode`: a new file next to it (`O_EXCL`, `O_NOFOLLOW`) renamed
    /// over `path`, so whatever was at `path` (a file, a symbolic link) is replaced and nothing it
    /// pointed to is touched (`StateFile.write`).
    static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o600) throws {
        do {
            try StateFile.write(bytes, to: path, mode: mode)
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// `rename(2)`: replaces a link at `destination` itself, never what it points to.
    static func rename(_ source: String, over destination: String) throws {
        guard posixRename(source, destination) == 0 else {
            let reason = errorText()
            unlink(source)
            throw Failure(description: "cannot put \(destination) in place: \(reason)")
        }
    }

    /// The bytes of a regular file the user named (links followed: reading is harmless), up to
    /// `limit`. A FIFO, a device or `/dev/stdin` named by a CA variable held `exec` for good
    /// (the open blocked and SIGTERM could not end it); they are refused at once
    /// (`StateFile.read`).
    static func read(_ path: String, limit: Int = readLimit) throws -> [UInt8] {
        do {
            return try StateFile.read(path, limit: limit, followLinks: true)
        } catch {
            throw Failure(description: error.description)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

// Outside the enum, where `rename` names the system call, not its method.
private func posixRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
