// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file descriptor that is closed exactly once: by `close()`, or when the last reference goes.
/// Our own in place of Foundation's `FileHandle`, which only full Foundation has (and with it
/// ICU's 30 MB: docs/development.md, "The binary").
package final class OwnedFile: @unchecked Sendable {
    // Sendable for standard output and error, shared by every thread: their writes are whole
    // write(2) calls, and `isOpen` never changes for a descriptor this does not close.
    package let descriptor: Int32
    private var isOpen: Bool

    /// `closes: false` for a descriptor this does not own (standard output and error).
    package init(descriptor: Int32, closes: Bool = true) {
        self.descriptor = descriptor
        isOpen = closes
    }

    /// Opens `path` for reading; nil, with errno set, when it cannot.
    package convenience init?(readingAt path: String) {
        let fd = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.init(descriptor: fd)
    }

    deinit {
        if isOpen { _ = systemClose(descriptor) }
    }

    /// Writes all of `bytes`, however many calls it takes; throws the errno of a failed write.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = systemWrite(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "write", code: errno)
            }
            offset += written
        }
    }

    package func write(_ bytes: [UInt8]) throws(FileError) {
        // `withUnsafeBytes` rethrows untyped; the error is carried out by hand.
        var failure: FileError?
        bytes.withUnsafeBytes { raw in
            do throws(FileError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Up to `count` bytes, fewer only at the end of the file.
    package func read(upToCount count: Int) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { raw in systemRead(descriptor, raw.baseAddress.map { $0 + filled }, count - filled) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "read", code: errno)
            }
            if got == 0 { break }
            filled += got
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    package func close() throws(FileError) {
        guard isOpen else { return }
        isOpen = false
        guard systemClose(descriptor) == 0 else { throw FileError(operation: "close", code: errno) }
    }

    /// A failed call on a file, with its errno.
    package struct FileError: Error, CustomStringConvertible {
        package let operation: String
        package let code: Int32
        package var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }
}

// The C library's calls, under names the methods above do not shadow.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, bytes, count) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
