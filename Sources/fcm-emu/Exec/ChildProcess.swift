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

/// The command `exec` runs, spawned with `posix_spawn` rather than Foundation's `Process`: the
/// child must start with no signal blocked and SIGINT, SIGTERM and SIGPIPE at their defaults,
/// whatever the spawning thread has (a Dispatch or NIO thread blocks them all, and NIO ignores
/// SIGPIPE), and in a process group of its own, so that a forwarded signal reaches everything it
/// started and nothing is left behind. It inherits standard input, output and error, and no
/// other descriptor of ours (`closeInherited`).
struct ChildProcess {
    let pid: pid_t

    /// Starts `command` (looked up on PATH) with `environment`, or says why it could not.
    static func spawn(_ command: [String], environment: [String: String]) -> Result<ChildProcess, POSIXError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        Self.closeInherited(&actions)
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: status) ?? .ENOENT)) }
        return .success(ChildProcess(pid: pid))
    }

    /// Sends `signal` to the child's whole process group.
    func signal(_ signal: Int32) { kill(-pid, signal) }

    /// Waits (off the caller's thread) for the child to end: its exit status, or 128 + the signal.
    func exitCode() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                continuation.resume(returning: Self.exitCode(waitStatus: status))
            }
        }
    }

    /// A wait status as a shell reports it: the exit status, or 128 + the signal that ended it.
    static func exitCode(waitStatus status: Int32) -> Int32 {
        let signalled = status & 0x7f
        return signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
    }

    /// Closes every descriptor above standard error in the child: a tool or command we start must
    /// not hold our files, sockets or pipes open (a script another thread is writing could not be
    /// run, ETXTBSY; a pipe would never see its end).
    static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        // The descriptors open now, as /proc lists them (glibc's closefrom action is not in
        // Swift's Glibc module); one opened after this line is another thread's, and opened
        // close-on-exec by NIO and by us.
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
