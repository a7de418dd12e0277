// SPDX-License-Identifier: Apache-2.0

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

/// The Linux namespaces `exec --isolate` runs in (docs/unmodified-apps.md, "Fail closed: exec
/// --isolate"). A process with threads cannot enter a new user namespace (unshare(2): EINVAL), so
/// exec starts `unshare(1)` (util-linux) with itself as the program, and the process inside sets
/// up the mounts and loopback with the system calls here.
enum Namespace {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `unshare(1)`'s options: a user namespace whose root is the caller (user_namespaces(7)) unless
    /// exec is root already, a network namespace (only `lo`, down), and a mount namespace whose
    /// mounts do not propagate back to the machine's.
    static func unshareOptions(root: Bool) -> [String] {
        (root ? [] : ["--user", "--map-root-user"]) + ["--net", "--mount", "--propagation", "private"]
    }

    /// The network and mount namespaces this process is in, as `/proc/self/ns` names them
    /// (namespaces(7)): another process in the same ones reads the same text.
    static func identity() -> String {
        ["net", "mnt"].map { kind -> String in
            var buffer = [CChar](repeating: 0, count: 128)
            let count = readlink("/proc/self/ns/" + kind, &buffer, buffer.count - 1)
            return count > 0 ? String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : kind + ":?"
        }.joined(separator: ",")
    }

    /// This program's own file, which the process inside runs; `/proc/self/exe` itself would name
    /// unshare once unshare runs it.
    static func executable() -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `mount --bind source target` (mount(2), `MS_BIND`): only in this process's mount namespace,
    /// whose propagation unshare made private, so the machine's file is never touched.
    static func bindMount(_ source: String, over target: String) throws {
        #if os(Linux)
            guard mount(source, target, nil, UInt(MS_BIND), nil) == 0 else {
                throw Failure(description: "cannot bind-mount \(source) over \(target): \(String(cString: strerror(errno)))")
            }
        #else
            throw Failure(description: "bind mounts in a private namespace need Linux")
        #endif
    }

    /// Brings `lo` up, as `ip link set lo up` does, with the `SIOCGIFFLAGS` and `SIOCSIFFLAGS`
    /// ioctls (netdevice(7)), so no `ip` command is needed: a new network namespace starts with
    /// `lo` down, and nothing, not even 127.0.0.1, answers until it is up.
    static func bringLoopbackUp() throws {
        #if os(Linux)
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "cannot bring lo up: socket: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            // struct ifreq: the name in the first IFNAMSIZ (16) bytes, then a union whose short
            // ifr_flags is at its start; 40 bytes on 64-bit Linux, more than enough on 32-bit.
            var request = [UInt8](repeating: 0, count: 64)
            for (at, byte) in "lo".utf8.enumerated() { request[at] = byte }
            let done = request.withUnsafeMutableBytes { raw -> Bool in
                guard let base = raw.baseAddress, ioctl(fd, UInt(SIOCGIFFLAGS), base) == 0 else { return false }
                let flags = base.loadUnaligned(fromByteOffset: 16, as: Int16.self)
                base.storeBytes(of: flags | Int16(IFF_UP), toByteOffset: 16, as: Int16.self)
                return ioctl(fd, UInt(SIOCSIFFLAGS), base) == 0
            }
            guard done else { throw Failure(description: "cannot bring lo up: \(String(cString: strerror(errno)))") }
        #else
            throw Failure(description: "a private network namespace needs Linux")
        #endif
    }
}
