// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files `exec` and `env` hand to a command (issue 23, items 1 and 3): a private directory with a
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
    static func makeDirectory(in parent: String = NSTemporaryDirectory(), prefix: String) throws -> String {
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
    /// pointed to is touched.
    static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o600) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".tmp-" + randomSuffix()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot create \(temporary): \(errorText())") }
        var written = true
        if fchmod(fd, mode) != 0 { written = false }
        let data = Array(bytes)
        var offset = 0
        while written, offset < data.count {
            let count = data[offset...].withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { written = false } else { offset += count }
        }
        let reason = errorText()
        close(fd)
        guard written else {
            unlink(temporary)
            throw Failure(description: "cannot write \(temporary): \(reason)")
        }
        try rename(temporary, over: path)
    }

    /// `rename(2)`: replaces a link at `destination` itself, never what it points to.
    static func rename(_ source: String, over destination: String) throws {
        guard posixRename(source, destination) == 0 else {
            let reason = errorText()
            unlink(source)
            throw Failure(description: "cannot put \(destination) in place: \(reason)")
        }
    }

    /// The bytes of a file the user named (links followed: reading is harmless), up to `limit`.
    static func read(_ path: String, limit: Int = readLimit) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(description: "\(path) does not exist")
        }
        guard !isDirectory.boolValue else { throw Failure(description: "\(path) is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot read \(path)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit + 1)) ?? nil
        guard let data else { throw Failure(description: "cannot read \(path)") }
        guard data.count <= limit else { throw Failure(description: "\(path) is over \(limit >> 20) MiB") }
        return Array(data)
    }

    private static func randomSuffix() -> String {
        (0..<12).map { _ in String("abcdefghijklmnopqrstuvwxyz0123456789".randomElement() ?? "x") }.joined()
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

// Outside the enum, where `write` and `rename` name the system calls, not its methods.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }
private func posixRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
