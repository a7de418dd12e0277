// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a helper tool (keytool) to its end and keeps what it printed: standard output and error
/// into one pipe, standard input from /dev/null. `posix_spawn` rather than Foundation's
/// `Process`, which only full Foundation has (docs/development.md, "The binary").
enum ChildOutput {
    /// What is kept of a tool's output; the rest is read and dropped, so the tool never blocks.
    static let maxBytes = 64 << 10

    /// The tool's exit status (-1 when it could not start, 128 + N when signal N ended it) and
    /// what it printed.
    static func run(_ tool: String, _ arguments: [String]) -> (status: Int32, output: String) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, "pipe: \(String(cString: strerror(errno)))") }
        let (reading, writing) = (ends[0], ends[1])
        // Closed on exec: another tool started meanwhile must not hold this pipe open.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writing, 1)
        posix_spawn_file_actions_adddup2(&actions, writing, 2)
        ChildProcess.closeInherited(&actions)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        close(writing)
        defer { close(reading) }
        guard spawned == 0 else { return (-1, "\(tool): \(String(cString: strerror(spawned)))") }
        var kept: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            kept += buffer[0..<min(count, max(0, maxBytes - kept.count))]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return (ChildProcess.exitCode(waitStatus: status), String(decoding: kept, as: UTF8.self))
    }
}
