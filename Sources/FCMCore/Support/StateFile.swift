// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files the emulator keeps (the local CA, signing keys, service-account keys) and files a user
/// names (a CA bundle to merge), read and written so that nothing planted at a path is followed
/// or waited on (docs/security.md):
///
/// - a write makes a new file beside the path (`O_CREAT|O_EXCL|O_NOFOLLOW`, its mode set on the
///   descriptor) and renames it over the path, so a link left there is replaced, never written
///   through, and no chmod reaches what it pointed to;
/// - a read opens without blocking (`O_NONBLOCK`: a FIFO or a terminal would hold the open, or
///   the read, for good) and takes a regular file only, checked on the descriptor (`fstat`), so
///   a FIFO, a device or `/dev/stdin` is refused at once and the process stays killable.
package enum StateFile {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Writes `bytes` to `path` with `mode`: a new file next to it renamed over it.
    package static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o600) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = folder + "." + name + ".tmp-" + randomSuffix()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot create \(temporary): \(errorText())") }
        var written = fchmod(fd, mode) == 0
        let data = Array(bytes)
        var offset = 0
        while written, offset < data.count {
            let count = data[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { written = false } else { offset += count }
        }
        let reason = errorText()
        close(fd)
        guard written else {
            unlink(temporary)
            throw Failure(description: "cannot write \(temporary): \(reason)")
        }
        guard systemRename(temporary, path) == 0 else {
            let reason = errorText()
            unlink(temporary)
            throw Failure(description: "cannot put \(path) in place: \(reason)")
        }
    }

    /// The bytes of the regular file at `path`, at most `limit`. `followLinks`: a path the user
    /// named may be a link (system CA bundles often are); a file of the emulator's own never is.
    package static func read(_ path: String, limit: Int, followLinks: Bool) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : errorText()
            throw Failure(description: "cannot read \(path): \(reason)")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw Failure(description: "cannot read \(path): \(errorText())") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind: String
            switch status.st_mode & S_IFMT {
            case S_IFDIR: kind = "a directory"
            case S_IFIFO: kind = "a FIFO (a pipe)"
            case S_IFCHR, S_IFBLK: kind = "a device"
            case S_IFSOCK: kind = "a socket"
            default: kind = "not a regular file"
            }
            throw Failure(description: "\(path) is \(kind), not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Failure(description: "cannot read \(path): \(errorText())") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw Failure(description: "\(path) is over \(limit) bytes") }
        }
    }

    private static func randomSuffix() -> String {
        var random = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return String(decoding: (0..<12).map { _ in letters[Int(random.next() % UInt64(letters.count))] }, as: UTF8.self)
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

// Outside the enum, where `read`, `write` and `rename` name the system calls, not its methods.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }
private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, bytes, count) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
