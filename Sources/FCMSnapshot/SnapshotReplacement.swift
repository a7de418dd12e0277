// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts a freshly written snapshot directory in place of the one at its name, atomically and
/// durably:
///
/// 1. the new copy is written beside the old one, under `.tmp-<pid>-<random>.<name>` (a name no
///    snapshot has: names start with a letter or digit), and every file in it and the directory
///    itself are fsynced;
/// 2. one `renameat2(RENAME_EXCHANGE)` swaps the two directories (Linux 3.15+, "rename(2)" man
///    page; `renamex_np(RENAME_SWAP)` on macOS), and the parent is fsynced: at every instant the
///    name holds a whole snapshot, the old or the new;
/// 3. the old copy, now under the temporary name, is removed.
///
/// A crash leaves at most a `.tmp-` directory beside the name, which `recover` removes at the
/// next start. Where the exchange is not supported (an old kernel, some network file systems),
/// the old copy is first renamed to `.old-<pid>-<random>.<name>`; a crash between the two renames
/// leaves no name, and `recover` renames the old copy back. Replacements of one name in one
/// process take turns, so concurrent exports to a name all succeed, the last one winning.
package enum SnapshotReplacement {
    /// The points between the steps, for the fault hook.
    package enum Step: String, Sendable {
        /// The new copy is written and fsynced; nothing is renamed yet.
        case written
        /// The name holds the new copy; the old one waits under the temporary name.
        case swapped
    }

    /// What a fault hook throws to stand for a crash: nothing is cleaned up after it.
    package struct Crash: Error, Sendable {
        package init() {}
    }

    /// A test seam: called with each step and the snapshot's final path. A hook that throws
    /// stops the replacement there and leaves the disk as a crash at that point would.
    package static let faultHook = Mutex<(@Sendable (Step, String) throws -> Void)?>(nil)

    private static let temporaryPrefix = ".tmp-"
    private static let asidePrefix = ".old-"
    private static let turns = Mutex<[String: Turn]>([:])

    /// A sibling temporary path for a new copy of `final`.
    package static func temporaryPath(for final: String) -> String {
        sibling(final, prefix: temporaryPrefix)
    }

    /// Makes `temporary` (a complete snapshot directory) durable, then puts it at `final`.
    package static func replace(_ final: String, with temporary: String) throws {
        try syncTree(temporary)
        try hook(.written, final)
        let parent = parentDirectory(final)
        try turn(for: final).mutex.withLock { _ throws in
            if try exchange(temporary, final) {
                try syncDirectory(parent)
                try hook(.swapped, final)
            } else {
                try twoRenames(final, temporary)
                try syncDirectory(parent)
                return
            }
        }
        // `temporary` now holds the old copy (or nothing), under a name nothing reads.
        try? FileManager.default.removeItem(atPath: temporary)
    }

    /// Finishes or rolls back what interrupted replacements left in `directory` (a folder of
    /// snapshots, or the parent of one): the old copy goes back where no name is, and leftover
    /// copies of processes no longer running are removed. Returns one line per action, to log.
    @discardableResult
    package static func recover(in directory: String) -> [String] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else { return [] }
        var done: [String] = []
        for entry in names.sorted() {
            let path = directory + "/" + entry
            guard let (prefix, pid, final) = parse(entry) else { continue }
            // Another fcm-emu writing into the same folder right now keeps its copy.
            guard pid == getpid() || kill(pid, 0) != 0 else { continue }
            let finalPath = directory + "/" + final
            if prefix == asidePrefix, !exists(finalPath), (try? fm.moveItem(atPath: path, toPath: finalPath)) != nil {
                done.append("restored \(final) from an interrupted replacement (\(entry))")
                continue
            }
            if (try? fm.removeItem(atPath: path)) != nil { done.append("removed \(entry), left by an interrupted export of \(final)") }
        }
        if !done.isEmpty { try? syncDirectory(directory) }
        return done
    }

    // MARK: - Steps

    private static func hook(_ step: Step, _ final: String) throws {
        if let hook = faultHook.withLock({ $0 }) { try hook(step, final) }
    }

    /// Swaps two paths atomically; false when the system cannot (then nothing happened).
    /// Creates `final` by a plain rename when nothing is there yet.
    private static func exchange(_ temporary: String, _ final: String) throws -> Bool {
        #if os(Linux)
            guard let renameat2 = Renameat2.function else { return false }
            if renameat2(AT_FDCWD, temporary, AT_FDCWD, final, Renameat2.exchange) == 0 { return true }
            let code = errno
            if code == ENOENT, !exists(final) {
                guard rename(temporary, final) == 0 else { throw SnapshotIOError("rename", final, errno) }
                return true
            }
            if code == EINVAL || code == ENOSYS || code == ENOTSUP { return false }
            throw SnapshotIOError("exchange", final, code)
        #elseif canImport(Darwin)
            if renamex_np(temporary, final, UInt32(RENAME_SWAP)) == 0 { return true }
            let code = errno
            if code == ENOENT, !exists(final) {
                guard rename(temporary, final) == 0 else { throw SnapshotIOError("rename", final, errno) }
                return true
            }
            if code == EINVAL || code == ENOTSUP { return false }
            throw SnapshotIOError("exchange", final, code)
        #else
            return false
        #endif
    }

    /// The fallback: old aside, new in place, old removed; `recover` mends a crash in between.
    private static func twoRenames(_ final: String, _ temporary: String) throws {
        guard exists(final) else {
            guard rename(temporary, final) == 0 else { throw SnapshotIOError("rename", final, errno) }
            return
        }
        let aside = sibling(final, prefix: asidePrefix)
        guard rename(final, aside) == 0 else { throw SnapshotIOError("rename", final, errno) }
        guard rename(temporary, final) == 0 else { throw SnapshotIOError("rename", final, errno) }
        try? FileManager.default.removeItem(atPath: aside)
    }

    // MARK: - Durability

    /// fsyncs every regular file directly in `directory`, then the directory (a snapshot is flat).
    static func syncTree(_ directory: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            try sync(directory + "/" + name, directory: false)
        }
        try syncDirectory(directory)
    }

    static func syncDirectory(_ path: String) throws { try sync(path, directory: true) }

    private static func sync(_ path: String, directory: Bool) throws {
        // O_NOFOLLOW: a link in a snapshot folder is never followed (nothing we write is one).
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
        guard fd >= 0 else { throw SnapshotIOError("open", path, errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SnapshotIOError("fsync", path, errno) }
    }

    // MARK: - Names

    private static func sibling(_ final: String, prefix: String) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return parentDirectory(final) + "/" + prefix + "\(getpid())-\(random)." + FilePaths.lastComponent(final)
    }

    /// `.tmp-<pid>-<random>.<name>` → (prefix, pid, name).
    private static func parse(_ entry: String) -> (String, pid_t, String)? {
        for prefix in [temporaryPrefix, asidePrefix] where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]),
                let dot = rest[dash...].firstIndex(of: ".")
            else { return nil }
            let final = String(rest[rest.index(after: dot)...])
            guard !final.isEmpty, !final.hasPrefix("."), !final.contains("/") else { return nil }
            return (prefix, pid, final)
        }
        return nil
    }

    private static func parentDirectory(_ path: String) -> String {
        let parent = FilePaths.parent(path)
        return parent.isEmpty ? "." : parent
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func turn(for final: String) -> Turn {
        turns.withLock { table in
            if let turn = table[final] { return turn }
            let turn = Turn()
            // Names are few (a person picks them); the table is cleared when it grows past them.
            if table.count >= 1024 { table.removeAll() }
            table[final] = turn
            return turn
        }
    }

    /// One replacement of a path at a time.
    private final class Turn: Sendable {
        let mutex = Mutex(())
    }
}

#if os(Linux)
    /// glibc has `renameat2` since 2.28 but its Swift module does not declare it: looked up once.
    private enum Renameat2 {
        typealias Function = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        static let exchange: UInt32 = 1 << 1  // RENAME_EXCHANGE, <linux/fs.h>
        static let function: Function? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else { return nil }
            return unsafeBitCast(symbol, to: Function.self)
        }()
    }
#endif

/// A file-system call that failed while writing a snapshot, with its errno. Descriptors, memory
/// or disk running out is the server's trouble (the control API answers 503), not the client's.
package struct SnapshotIOError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let path: String
    package let code: Int32

    package init(_ operation: String, _ path: String, _ code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    package var description: String { "\(operation) \(FilePaths.lastComponent(path)): \(String(cString: strerror(code)))" }

    /// The errno of a failure that means the machine ran short (EMFILE, ENFILE, ENOMEM, ENOSPC,
    /// EDQUOT), from our own calls or Foundation's; nil for anything else.
    package static func exhaustion(in error: any Error) -> Int32? {
        let short: Set<Int32> = [EMFILE, ENFILE, ENOMEM, ENOSPC, EDQUOT]
        var code: Int32?
        if let io = error as? SnapshotIOError {
            code = io.code
        } else if let posix = error as? POSIXError {
            code = posix.code.rawValue
        } else if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            code = posix.code.rawValue
        }
        guard let code, short.contains(code) else { return nil }
        return code
    }
}
